#include "store/marker_checked_store.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/forwarding_store.h"
#include "store/store_marker.h"

namespace awc::store {
namespace {

class MarkerCheckedStore : public ForwardingStore {
 public:
  MarkerCheckedStore(std::unique_ptr<ObjectStore> inner, std::string url,
                     std::string setting)
      : ForwardingStore(std::move(inner)),
        url_(std::move(url)),
        setting_(std::move(setting)) {}

  Status Get(const ObjectKey& key, const ChunkSink& sink) override {
    return Confirmed(inner().Get(key, sink));
  }

  Result<uint64_t> Head(const ObjectKey& key) override {
    Result<uint64_t> size = inner().Head(key);
    if (!size.status().IsNotFound()) return size;
    return Confirmed(size.status());
  }

  void GetMany(std::vector<GetRequest>& requests) override {
    std::vector<std::pair<std::function<void(Status)>, Status>> missing;
    std::vector<std::function<void(Status)>> done;
    done.reserve(requests.size());
    for (GetRequest& r : requests) {
      done.push_back(std::move(r.done));
      r.done = [this, &missing, &d = done.back()](Status s) {
        if (s.IsNotFound()) {
          missing.emplace_back(std::move(d), std::move(s));
        } else {
          d(std::move(s));
        }
      };
    }
    inner().GetMany(requests);
    if (missing.empty()) return;
    Status marker = Marker();
    for (auto& [d, s] : missing) d(marker.ok() ? std::move(s) : marker);
  }

  void HeadMany(std::vector<HeadRequest>& requests) override {
    std::vector<std::pair<std::function<void(Result<uint64_t>)>, Status>>
        missing;
    std::vector<std::function<void(Result<uint64_t>)>> done;
    done.reserve(requests.size());
    for (HeadRequest& r : requests) {
      done.push_back(std::move(r.done));
      r.done = [this, &missing, &d = done.back()](Result<uint64_t> size) {
        if (size.status().IsNotFound()) {
          missing.emplace_back(std::move(d), size.status());
        } else {
          d(std::move(size));
        }
      };
    }
    inner().HeadMany(requests);
    if (missing.empty()) return;
    Status marker = Marker();
    for (auto& [d, s] : missing) d(marker.ok() ? std::move(s) : marker);
  }

  Status Put(const ObjectKey& key, std::string_view data) override {
    AWC_RETURN_IF_ERROR(Marker());
    return inner().Put(key, data);
  }

  Status PutFile(const ObjectKey& key, const std::string& path) override {
    AWC_RETURN_IF_ERROR(Marker());
    return inner().PutFile(key, path);
  }

  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) override {
    AWC_RETURN_IF_ERROR(Marker());
    return inner().DeleteMany(keys);
  }

  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override {
    AWC_RETURN_IF_ERROR(inner().List(tenant_id, after, each));
    return Marker();
  }

 private:
  // `found`, a kNotFound, when the marker says the store is the store.
  Status Confirmed(Status found) {
    if (!found.IsNotFound()) return found;
    Status marker = Marker();
    return marker.ok() ? found : marker;
  }

  // OK when the marker is there and valid; otherwise kTransient: the store
  // is not there for now, and nothing can be concluded from it.
  Status Marker() {
    Status s = CheckStoreMarker(inner(), url_);
    if (s.ok()) return s;
    return Status::Transient("the store of " + setting_ +
                             " is not there, so nothing is concluded from "
                             "what it lacks (an unmounted volume?): " +
                             s.message());
  }

  const std::string url_;
  const std::string setting_;
};

}  // namespace

std::unique_ptr<ObjectStore> NewMarkerCheckedStore(
    std::unique_ptr<ObjectStore> inner, std::string url, std::string setting) {
  return std::make_unique<MarkerCheckedStore>(std::move(inner), std::move(url),
                                              std::move(setting));
}

}  // namespace awc::store
