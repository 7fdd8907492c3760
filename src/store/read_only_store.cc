#include "store/read_only_store.h"

#include <string>
#include <utility>
#include <vector>

namespace awc::store {
namespace {

class ReadOnlyStore : public ObjectStore {
 public:
  explicit ReadOnlyStore(std::unique_ptr<ObjectStore> inner)
      : inner_(std::move(inner)) {}

  const char* scheme() const override { return inner_->scheme(); }
  Status Get(const ObjectKey& key, const ChunkSink& sink) override {
    return inner_->Get(key, sink);
  }
  void GetMany(std::vector<GetRequest>& requests) override {
    inner_->GetMany(requests);
  }
  Result<uint64_t> Head(const ObjectKey& key) override {
    return inner_->Head(key);
  }
  void HeadMany(std::vector<HeadRequest>& requests) override {
    inner_->HeadMany(requests);
  }
  Status Put(const ObjectKey& key, std::string_view) override {
    return Refused("put " + key.digest);
  }
  Status PutFile(const ObjectKey& key, const std::string&) override {
    return Refused("put " + key.digest);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>&) override {
    return Refused("delete");
  }
  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override {
    return inner_->List(tenant_id, after, each);
  }
  int parallelism() const override { return inner_->parallelism(); }
  Result<std::string> ReadMarker() override { return inner_->ReadMarker(); }
  Status WriteMarker(std::string_view) override {
    return Refused("write the store marker");
  }

 private:
  static Status Refused(const std::string& what) {
    return Status::FailedPrecondition("cannot " + what +
                                      ": the repair store is read-only");
  }

  std::unique_ptr<ObjectStore> inner_;
};

}  // namespace

std::unique_ptr<ObjectStore> NewReadOnlyStore(
    std::unique_ptr<ObjectStore> inner) {
  return std::make_unique<ReadOnlyStore>(std::move(inner));
}

}  // namespace awc::store
