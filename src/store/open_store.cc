#include "store/open_store.h"

#include "common/env.h"
#include "store/file_store.h"
#include "store/memory_store.h"
#include "store/store_marker.h"
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

Result<std::unique_ptr<ObjectStore>> OpenInitializedStore(
    const StoreUrl& url, const S3Options& s3, struct ev_loop* loop) {
  std::string name = FormatStoreUrl(url);
  Result<std::unique_ptr<ObjectStore>> store = OpenStore(url, s3, loop);
  // A file:// root that does not exist: never made by `awcctl store init`.
  if (store.status().IsNotFound()) {
    return NotInitialized(name, store.status().message());
  }
  if (!store.ok()) return store.status();
  AWC_RETURN_IF_ERROR(CheckStoreMarker(**store, name));
  return store;
}

Result<bool> InitializeStore(const StoreUrl& url, const S3Options& s3,
                             struct ev_loop* loop) {
  if (url.scheme == StoreUrl::Scheme::kMemory) return false;
  if (url.scheme == StoreUrl::Scheme::kFile) {
    std::string root = url.path.empty() ? "/" : url.path;
    AWC_RETURN_IF_ERROR(Env::Default()->CreateDirs(root).WithContext(
        "cannot create file store root \"" + root + "\""));
  }
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> store,
                       OpenStore(url, s3, loop));
  return WriteStoreMarker(*store, FormatStoreUrl(url));
}

}  // namespace awc::store
