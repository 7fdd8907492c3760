#include "store/marker_checked_store.h"

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "store/forwarding_store.h"
#include "store/store_marker.h"

namespace awc::store {
namespace {

// What a GetRequest's or HeadRequest's `done` is given.
template <typename Done>
struct AnswerOf;
template <typename A>
struct AnswerOf<std::function<void(A)>> {
  using type = A;
};

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
    ConfirmingMissing(
        requests, [this](std::vector<GetRequest>& r) { inner().GetMany(r); });
  }

  void HeadMany(std::vector<HeadRequest>& requests) override {
    ConfirmingMissing(
        requests, [this](std::vector<HeadRequest>& r) { inner().HeadMany(r); });
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
  static const Status& StatusOf(const Status& s) { return s; }
  static const Status& StatusOf(const Result<uint64_t>& r) {
    return r.status();
  }

  // Runs `requests` (GetMany's or HeadMany's) through `run`, holding back
  // the `done` of each that found nothing until all have run, then reading
  // the marker once for them.
  template <typename Request>
  void ConfirmingMissing(
      std::vector<Request>& requests,
      const std::type_identity_t<std::function<void(std::vector<Request>&)>>&
          run) {
    using Done = decltype(Request::done);
    using Answer = typename AnswerOf<Done>::type;
    std::vector<std::pair<Done, Answer>> missing;
    std::vector<Done> done;
    done.reserve(requests.size());
    for (Request& r : requests) {
      done.push_back(std::move(r.done));
      r.done = [&missing, &d = done.back()](Answer answer) {
        if (StatusOf(answer).IsNotFound()) {
          missing.emplace_back(std::move(d), std::move(answer));
        } else {
          d(std::move(answer));
        }
      };
    }
    run(requests);
    if (missing.empty()) return;
    Status marker = Marker();
    for (auto& [d, answer] : missing) {
      if (marker.ok()) {
        d(std::move(answer));
      } else {
        d(Answer(marker));
      }
    }
  }

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
