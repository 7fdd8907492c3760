// MeteredStore: an ObjectStore that passes every call on to another one and
// records it in the shared metrics (obs/metrics.h):
// awc_store_requests_total{store,op,result},
// awc_store_request_duration_seconds{store,op} and
// awc_store_bytes_read_total{store}. Each worker process wraps the store it
// opens in one.
//
// Contract:
//  - It behaves exactly as the store it wraps: the same calls in the same
//    order, the same results; sinks and List callbacks see the same bytes
//    and entries.
//  - One request per call of Get, Head, Put and PutFile (op put), DeleteMany
//    (op delete, however many batches the store makes of it) and List, and
//    one per request of GetMany (op get) and HeadMany (op head). The store
//    marker's reads and writes are not counted.
//  - The result is "aborted" when the caller's sink or List callback
//    stopped the call by returning an error; otherwise the class of the
//    returned Status (store::StoreResultOf). A DeleteMany that succeeded as a
//    call takes the class of its first failed key, if any.
//  - The store's series appear with its first request: then every op and
//    result of its store label (the URL's scheme) is declared, at 0.
//  - The time runs from the call to its return on the Env's monotonic
//    clock. A GetMany or HeadMany request counts from when the wrapped
//    store can start it: the first parallelism() requests at once, each later
//    one when an earlier one completes (stores start them in order,
//    parallelism() at a time; object_store.h).
//  - Bytes read are the bytes handed to sinks.
#ifndef AWC_WORKER_METERED_STORE_H_
#define AWC_WORKER_METERED_STORE_H_

#include <memory>

#include "common/env.h"
#include "obs/metrics.h"
#include "store/object_store.h"
#include "store/store_request.h"
#include "store/store_url.h"

namespace awc::worker {

class MeteredStore : public store::ObjectStore {
 public:
  // None of the pointers is null; `metrics` and `env` outlive the store.
  // `scheme` is the store label: the scheme of the URL `inner` was opened
  // from.
  MeteredStore(std::unique_ptr<store::ObjectStore> inner,
               store::StoreUrl::Scheme scheme, obs::Metrics* metrics, Env* env);

  const char* scheme() const override { return inner_->scheme(); }
  int parallelism() const override { return inner_->parallelism(); }

  Status Get(const store::ObjectKey& key,
             const store::ChunkSink& sink) override;
  void GetMany(std::vector<GetRequest>& requests) override;
  Result<uint64_t> Head(const store::ObjectKey& key) override;
  void HeadMany(std::vector<HeadRequest>& requests) override;
  Status Put(const store::ObjectKey& key, std::string_view data) override;
  Status PutFile(const store::ObjectKey& key, const std::string& path) override;
  Result<std::vector<Status>> DeleteMany(
      const std::vector<store::ObjectKey>& keys) override;
  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override;
  // The store marker is read when a store is opened, not by jobs: passed
  // on, not counted.
  Result<std::string> ReadMarker() override { return inner_->ReadMarker(); }
  Status WriteMarker(std::string_view content) override {
    return inner_->WriteMarker(content);
  }

 private:
  class ManyClock;
  // One request that took `seconds`.
  void Count(store::StoreOp op, store::StoreResult result, double seconds);
  // One request that started at `started` and ended now.
  void Record(store::StoreOp op, store::StoreResult result, double started) {
    Count(op, result, env_->NowMonotonic() - started);
  }
  void Record(store::StoreOp op, const Status& status, double started) {
    Record(op, store::StoreResultOf(status), started);
  }
  void CountBytesRead(uint64_t bytes);

  std::unique_ptr<store::ObjectStore> inner_;
  store::StoreUrl::Scheme scheme_;
  obs::Metrics* metrics_;
  Env* env_;
  bool declared_ = false;  // this store's series (a store has one thread)
};

}  // namespace awc::worker

#endif  // AWC_WORKER_METERED_STORE_H_
