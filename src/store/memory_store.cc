#include "store/memory_store.h"

#include <ctime>
#include <map>
#include <optional>
#include <utility>

#include "common/env.h"
#include "digest/ids.h"
#include "digest/sha256.h"

namespace awc::store {
namespace {

class MemoryStore : public ObjectStore {
 public:
  const char* scheme() const override { return "memory"; }

  Status Get(const ObjectKey& key, const ChunkSink& sink) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    auto it = objects_.find(RelativeKey(key));
    if (it == objects_.end()) {
      return Status::NotFound("object " + key.digest + " not found");
    }
    // Chunked like the other stores, so sinks see the same shapes. A copy,
    // so a sink that overwrites or deletes the object does not pull the
    // bytes from under the loop.
    const std::string data = it->second.data;
    constexpr size_t kChunk = 64 * 1024;
    for (size_t off = 0; off < data.size(); off += kChunk) {
      AWC_RETURN_IF_ERROR(sink(std::string_view(data).substr(off, kChunk)));
    }
    return Status::OK();
  }

  Result<uint64_t> Head(const ObjectKey& key) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    auto it = objects_.find(RelativeKey(key));
    if (it == objects_.end()) {
      return Status::NotFound("object " + key.digest + " not found");
    }
    return static_cast<uint64_t>(it->second.data.size());
  }

  Status Put(const ObjectKey& key, std::string_view data) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    objects_[RelativeKey(key)] = {std::string(data), time(nullptr)};
    return Status::OK();
  }

  Status PutFile(const ObjectKey& key, const std::string& path) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    Result<std::string> data = Env::Default()->ReadFile(path);
    if (!data.ok()) {
      // A missing source is the caller's error, not a missing object.
      return Status::IoError("cannot store object " + key.digest + ": " +
                             data.status().message());
    }
    if ("sha256:" + digest::Sha256::HexOf(*data) != key.digest) {
      return ContentChanged(key, path);
    }
    return Put(key, *data);
  }

  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) override {
    std::vector<Status> out;
    for (const ObjectKey& key : keys) {
      Status s = Validate(key);
      if (s.ok()) objects_.erase(RelativeKey(key));
      out.push_back(std::move(s));
    }
    return out;
  }

  Result<std::string> ReadMarker() override {
    if (!marker_) return Status::NotFound("no store marker");
    if (marker_->size() > kMaxMarkerBytes) {
      return Status::FailedPrecondition("the store marker is larger than " +
                                        std::to_string(kMaxMarkerBytes) +
                                        " bytes");
    }
    return *marker_;
  }
  Status WriteMarker(std::string_view content) override {
    marker_ = std::string(content);
    return Status::OK();
  }

  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override {
    if (!digest::IsValidTenantId(tenant_id)) {
      return Status::InvalidArgument("malformed tenant id");
    }
    // Collected first, so `each` may put or delete objects. The map's
    // order is the digests' (every key of a tenant has the same shape).
    std::vector<ListedKey> found;
    std::string prefix = tenant_id + "/sha256/";
    auto it = objects_.lower_bound(prefix);
    if (!after.empty()) {
      Result<ObjectKey> from = MakeKey(tenant_id, after);
      if (!from.ok()) return from.status();
      it = objects_.upper_bound(RelativeKey(*from));
    }
    for (; it != objects_.end() && it->first.starts_with(prefix); ++it) {
      ListedKey k;
      k.digest = "sha256:" + it->first.substr(it->first.rfind('/') + 1);
      k.name = it->first.substr(tenant_id.size() + 1);
      k.size = it->second.data.size();
      k.modified = it->second.modified;
      found.push_back(std::move(k));
    }
    for (const ListedKey& k : found) AWC_RETURN_IF_ERROR(each(k));
    return Status::OK();
  }

 private:
  // Keys are plain structs; one not made by MakeKey() is refused.
  static Status Validate(const ObjectKey& key) {
    return MakeKey(key.tenant_id, key.digest).status();
  }

  struct Stored {
    std::string data;
    int64_t modified = 0;  // when it was put, seconds since the epoch
  };
  std::map<std::string, Stored> objects_;
  std::optional<std::string> marker_;
};

}  // namespace

std::unique_ptr<ObjectStore> NewMemoryStore() {
  return std::make_unique<MemoryStore>();
}

}  // namespace awc::store
