#include "store/object_store.h"

#include "digest/ids.h"
#include "store/file_store.h"
#include "store/memory_store.h"
#if AWC_WITH_S3
#include "store/s3/s3_store.h"
#endif

namespace awc::store {

Result<ObjectKey> MakeKey(std::string_view tenant_id, std::string_view digest) {
  if (!digest::IsValidTenantId(tenant_id)) {
    return Status::InvalidArgument("malformed tenant id");
  }
  if (!digest::IsValidDigest(digest)) {
    return Status::InvalidArgument("malformed digest");
  }
  return ObjectKey{std::string(tenant_id), std::string(digest)};
}

std::string RelativeKey(const ObjectKey& key) {
  std::string_view hex = std::string_view(key.digest).substr(7);
  return key.tenant_id + "/sha256/" + std::string(hex.substr(0, 2)) + "/" +
         std::string(hex);
}

void ObjectStore::GetMany(std::vector<GetRequest>& requests) {
  for (GetRequest& r : requests) r.done(Get(r.key, r.sink));
}

Result<std::unique_ptr<ObjectStore>> OpenStore(const StoreUrl& url,
                                               const config::Settings& settings,
                                               struct ev_loop* loop) {
  switch (url.scheme) {
    case StoreUrl::Scheme::kMemory:
      return NewMemoryStore();
    case StoreUrl::Scheme::kFile:
      return NewFileStore(url.path);
    case StoreUrl::Scheme::kS3:
#if AWC_WITH_S3
      return NewS3Store(url, settings, loop);
#else
      break;
#endif
  }
  (void)settings;
  (void)loop;
  return Status::InvalidArgument("AWC_CAS_URL: unsupported store");
}

}  // namespace awc::store
