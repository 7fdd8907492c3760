// A store in front of another that counts Get calls per digest (to prove
// each object is read once) and can run a test's code right after an
// object was read (to interfere between a walk's read and its commit).
#ifndef AWC_TESTS_SUPPORT_COUNTING_STORE_H_
#define AWC_TESTS_SUPPORT_COUNTING_STORE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "store/object_store.h"

namespace awc::testing {

class CountingStore : public store::ObjectStore {
 public:
  explicit CountingStore(store::ObjectStore& inner) : inner_(inner) {}
  const char* scheme() const override { return inner_.scheme(); }
  Status Get(const store::ObjectKey& key,
             const store::ChunkSink& sink) override {
    ++reads_[key.digest];
    Status s = inner_.Get(key, sink);
    if (after_get) after_get(key.digest);
    return s;
  }
  Result<uint64_t> Head(const store::ObjectKey& key) override {
    return inner_.Head(key);
  }
  Status Put(const store::ObjectKey& key, std::string_view data) override {
    return inner_.Put(key, data);
  }
  Status PutFile(const store::ObjectKey& key,
                 const std::string& path) override {
    return inner_.PutFile(key, path);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<store::ObjectKey>& keys) override {
    return inner_.DeleteMany(keys);
  }
  Status List(const std::string& tenant, const std::string& after,
              const ListFn& each) override {
    return inner_.List(tenant, after, each);
  }
  Result<std::string> ReadMarker() override { return inner_.ReadMarker(); }
  Status WriteMarker(std::string_view content) override {
    return inner_.WriteMarker(content);
  }

  std::map<std::string, int> reads_;
  // Called with the digest after each Get returned (whatever it returned).
  std::function<void(const std::string& digest)> after_get;

 private:
  store::ObjectStore& inner_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_COUNTING_STORE_H_
