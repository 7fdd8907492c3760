#include "worker/metered_store.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace awc::worker {

MeteredStore::MeteredStore(std::unique_ptr<store::ObjectStore> inner,
                           store::StoreUrl::Scheme scheme,
                           obs::Metrics* metrics, Env* env)
    : inner_(std::move(inner)), scheme_(scheme), metrics_(metrics), env_(env) {}

void MeteredStore::Count(store::StoreOp op, store::StoreResult result,
                         double seconds) {
  if (!declared_) {
    for (const store::StoreOpRow& o : store::kStoreOps) {
      for (const store::StoreResultRow& r : store::kStoreResults) {
        metrics_->Declare(obs::MetricId::kStoreRequests,
                          obs::MakeLabels(scheme_, o.value, r.value));
      }
    }
    for (const store::StoreOpRow& o : store::kStoreOps) {
      metrics_->Declare(obs::MetricId::kStoreRequestDuration,
                        obs::MakeLabels(scheme_, o.value));
    }
    metrics_->Declare(obs::MetricId::kStoreBytesRead, obs::MakeLabels(scheme_));
    declared_ = true;
  }
  metrics_->ObserveStoreRequest(scheme_, op, result, seconds);
}

void MeteredStore::CountBytesRead(uint64_t bytes) {
  // Bytes come with requests: before the first, there is nothing to show.
  if (declared_) metrics_->CountStoreBytesRead(scheme_, bytes);
}

Status MeteredStore::Get(const store::ObjectKey& key,
                         const store::ChunkSink& sink) {
  uint64_t bytes = 0;
  bool stopped = false;
  double started = env_->NowMonotonic();
  Status s = inner_->Get(key, [&](std::string_view chunk) {
    bytes += chunk.size();
    Status taken = sink(chunk);
    stopped |= !taken.ok();
    return taken;
  });
  Record(store::StoreOp::kGet,
         stopped ? store::StoreResult::kAborted : store::StoreResultOf(s),
         started);
  CountBytesRead(bytes);
  return s;
}

// When each of n requests of a GetMany or HeadMany started: the first
// `parallel` at once, each later one when an earlier one completes
// (stores start them in order, parallelism() at a time; object_store.h).
class MeteredStore::ManyClock {
 public:
  ManyClock(size_t n, int parallel, Env* env)
      : parallel_(static_cast<size_t>(std::max(parallel, 1))),
        started_(n, env->NowMonotonic()),
        env_(env) {}
  // Request i completed: its duration; the next waiting one starts now.
  double Done(size_t i) {
    double now = env_->NowMonotonic();
    if (size_t next = parallel_ + completed_++; next < started_.size()) {
      started_[next] = now;
    }
    return now - started_[i];
  }

 private:
  const size_t parallel_;
  std::vector<double> started_;
  size_t completed_ = 0;
  Env* env_;
};

void MeteredStore::GetMany(std::vector<GetRequest>& requests) {
  const size_t n = requests.size();
  ManyClock clock(n, inner_->parallelism(), env_);
  std::vector<char> stopped(n, 0);
  uint64_t bytes = 0;
  std::vector<GetRequest> metered(n);
  for (size_t i = 0; i < n; ++i) {
    metered[i].key = requests[i].key;
    metered[i].sink = [&, i](std::string_view chunk) {
      bytes += chunk.size();
      Status taken = requests[i].sink(chunk);
      if (!taken.ok()) stopped[i] = 1;
      return taken;
    };
    metered[i].done = [&, i](Status s) {
      Count(store::StoreOp::kGet,
            stopped[i] ? store::StoreResult::kAborted : store::StoreResultOf(s),
            clock.Done(i));
      requests[i].done(std::move(s));
    };
  }
  inner_->GetMany(metered);
  CountBytesRead(bytes);
}

void MeteredStore::HeadMany(std::vector<HeadRequest>& requests) {
  ManyClock clock(requests.size(), inner_->parallelism(), env_);
  std::vector<HeadRequest> metered(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    metered[i].key = requests[i].key;
    metered[i].done = [&, i](Result<uint64_t> r) {
      Count(store::StoreOp::kHead, store::StoreResultOf(r.status()),
            clock.Done(i));
      requests[i].done(std::move(r));
    };
  }
  inner_->HeadMany(metered);
}

Result<uint64_t> MeteredStore::Head(const store::ObjectKey& key) {
  double started = env_->NowMonotonic();
  Result<uint64_t> r = inner_->Head(key);
  Record(store::StoreOp::kHead, r.status(), started);
  return r;
}

Status MeteredStore::Put(const store::ObjectKey& key, std::string_view data) {
  double started = env_->NowMonotonic();
  Status s = inner_->Put(key, data);
  Record(store::StoreOp::kPut, s, started);
  return s;
}

Status MeteredStore::PutFile(const store::ObjectKey& key,
                             const std::string& path) {
  double started = env_->NowMonotonic();
  Status s = inner_->PutFile(key, path);
  Record(store::StoreOp::kPut, s, started);
  return s;
}

Result<std::vector<Status>> MeteredStore::DeleteMany(
    const std::vector<store::ObjectKey>& keys) {
  double started = env_->NowMonotonic();
  Result<std::vector<Status>> r = inner_->DeleteMany(keys);
  Status first = r.status();
  if (r.ok()) {
    auto failed = std::find_if(r->begin(), r->end(),
                               [](const Status& s) { return !s.ok(); });
    if (failed != r->end()) first = *failed;
  }
  Record(store::StoreOp::kDelete, first, started);
  return r;
}

Status MeteredStore::List(const std::string& tenant_id,
                          const std::string& after, const ListFn& each) {
  bool stopped = false;
  double started = env_->NowMonotonic();
  Status s = inner_->List(tenant_id, after, [&](const ListedKey& key) {
    Status taken = each(key);
    stopped |= !taken.ok();
    return taken;
  });
  Record(store::StoreOp::kList,
         stopped ? store::StoreResult::kAborted : store::StoreResultOf(s),
         started);
  return s;
}

}  // namespace awc::worker
