// ForwardingStore: an ObjectStore that passes every call on to another
// one, the base of the store decorators (the read-only repair store, the
// marker-checked store): each overrides only the calls it changes.
//
// Contract: every call not overridden is the inner store's, with the same
// arguments and result; the inner store lives as long as this one.
#ifndef AWC_STORE_FORWARDING_STORE_H_
#define AWC_STORE_FORWARDING_STORE_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/object_store.h"

namespace awc::store {

class ForwardingStore : public ObjectStore {
 public:
  explicit ForwardingStore(std::unique_ptr<ObjectStore> inner)
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
  Status Put(const ObjectKey& key, std::string_view data) override {
    return inner_->Put(key, data);
  }
  Status PutFile(const ObjectKey& key, const std::string& path) override {
    return inner_->PutFile(key, path);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) override {
    return inner_->DeleteMany(keys);
  }
  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override {
    return inner_->List(tenant_id, after, each);
  }
  int parallelism() const override { return inner_->parallelism(); }
  Result<std::string> ReadMarker() override { return inner_->ReadMarker(); }
  Status WriteMarker(std::string_view content) override {
    return inner_->WriteMarker(content);
  }

 protected:
  ObjectStore& inner() { return *inner_; }

 private:
  std::unique_ptr<ObjectStore> inner_;
};

}  // namespace awc::store

#endif  // AWC_STORE_FORWARDING_STORE_H_
