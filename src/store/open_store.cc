#include "store/open_store.h"

#include "store/file_store.h"
#include "store/memory_store.h"
#if AWC_WITH_S3
#include "store/s3/s3_store.h"
#endif

namespace awc::store {

Result<std::unique_ptr<ObjectStore>> OpenStore(const StoreUrl& url,
                                               const S3Options& s3,
                                               struct ev_loop* loop) {
  switch (url.scheme) {
    case StoreUrl::Scheme::kMemory:
      return NewMemoryStore();
    case StoreUrl::Scheme::kFile:
      return NewFileStore(url.path);
    case StoreUrl::Scheme::kS3:
#if AWC_WITH_S3
      return NewS3Store(url, s3, loop);
#else
      break;
#endif
  }
  (void)s3;
  (void)loop;
  return Status::InvalidArgument(std::string(SchemeName(url.scheme)) +
                                 ":// is not supported by this build");
}

}  // namespace awc::store
