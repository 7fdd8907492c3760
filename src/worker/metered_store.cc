#include "worker/metered_store.h"

#include <algorithm>
#include <utility>

namespace awc::worker {

obs::StoreKind StoreKindOf(store::StoreUrl::Scheme scheme) {
  switch (scheme) {
    case store::StoreUrl::Scheme::kMemory:
      break;
    case store::StoreUrl::Scheme::kFile:
      return obs::StoreKind::kFile;
    case store::StoreUrl::Scheme::kS3:
      return obs::StoreKind::kS3;
  }
  return obs::StoreKind::kMemory;
}

MeteredStore::MeteredStore(std::unique_ptr<store::ObjectStore> inner,
                           obs::StoreKind kind, obs::Metrics* metrics, Env* env)
    : inner_(std::move(inner)), kind_(kind), metrics_(metrics), env_(env) {}

void MeteredStore::Record(obs::StoreOp op, obs::StoreResult result,
                          double started) {
  metrics_->ObserveStoreRequest(kind_, op, result,
                                env_->NowMonotonic() - started);
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
  Record(obs::StoreOp::kGet,
         stopped ? obs::StoreResult::kAborted : obs::StoreResultOf(s), started);
  metrics_->CountStoreBytesRead(kind_, bytes);
  return s;
}

void MeteredStore::GetMany(std::vector<GetRequest>& requests) {
  const size_t n = requests.size();
  const size_t parallel =
      static_cast<size_t>(std::max(inner_->parallelism(), 1));
  std::vector<double> started(n, env_->NowMonotonic());
  std::vector<char> stopped(n, 0);
  size_t completed = 0;
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
      double now = env_->NowMonotonic();
      metrics_->ObserveStoreRequest(
          kind_, obs::StoreOp::kGet,
          stopped[i] ? obs::StoreResult::kAborted : obs::StoreResultOf(s),
          now - started[i]);
      // The next request waiting for a free transfer starts now.
      if (size_t next = parallel + completed++; next < n) started[next] = now;
      requests[i].done(std::move(s));
    };
  }
  inner_->GetMany(metered);
  metrics_->CountStoreBytesRead(kind_, bytes);
}

Result<uint64_t> MeteredStore::Head(const store::ObjectKey& key) {
  double started = env_->NowMonotonic();
  Result<uint64_t> r = inner_->Head(key);
  Record(obs::StoreOp::kHead, r.status(), started);
  return r;
}

Status MeteredStore::Put(const store::ObjectKey& key, std::string_view data) {
  double started = env_->NowMonotonic();
  Status s = inner_->Put(key, data);
  Record(obs::StoreOp::kPut, s, started);
  return s;
}

Status MeteredStore::PutFile(const store::ObjectKey& key,
                             const std::string& path) {
  double started = env_->NowMonotonic();
  Status s = inner_->PutFile(key, path);
  Record(obs::StoreOp::kPut, s, started);
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
  Record(obs::StoreOp::kDelete, first, started);
  return r;
}

Status MeteredStore::List(const std::string& tenant_id, const ListFn& each) {
  bool stopped = false;
  double started = env_->NowMonotonic();
  Status s =
      inner_->List(tenant_id, [&](const std::string& digest, uint64_t size) {
        Status taken = each(digest, size);
        stopped |= !taken.ok();
        return taken;
      });
  Record(obs::StoreOp::kList,
         stopped ? obs::StoreResult::kAborted : obs::StoreResultOf(s), started);
  return s;
}

}  // namespace awc::worker
