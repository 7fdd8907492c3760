#include "store/object_store.h"

#include "digest/ids.h"

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

Status ContentChanged(const ObjectKey& key, const std::string& path) {
  return Status::Corruption("cannot store object " + key.digest +
                            ": the content of \"" + path +
                            "\" does not hash to it (the file changed after "
                            "it was hashed)");
}

void ObjectStore::GetMany(std::vector<GetRequest>& requests) {
  for (GetRequest& r : requests) r.done(Get(r.key, r.sink));
}

void ObjectStore::HeadMany(std::vector<HeadRequest>& requests) {
  for (HeadRequest& r : requests) r.done(Head(r.key));
}

}  // namespace awc::store
