#include "store/read_only_store.h"

#include <string>
#include <utility>
#include <vector>

#include "store/forwarding_store.h"

namespace awc::store {
namespace {

class ReadOnlyStore : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

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
  Status WriteMarker(std::string_view) override {
    return Refused("write the store marker");
  }

 private:
  static Status Refused(const std::string& what) {
    return Status::FailedPrecondition("cannot " + what +
                                      ": the repair store is read-only");
  }
};

}  // namespace

std::unique_ptr<ObjectStore> NewReadOnlyStore(
    std::unique_ptr<ObjectStore> inner) {
  return std::make_unique<ReadOnlyStore>(std::move(inner));
}

}  // namespace awc::store
