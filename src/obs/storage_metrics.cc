// The instruments of what the handlers find and do to the store: snapshot
// verdicts, GC epochs and deletions, and the store's requests. Every label
// is a closed set (metrics.h).
#include <iterator>

#include "obs/metrics.h"
#include "obs/metrics_region.h"
#include "obs/prom_text.h"

namespace awc::obs {
namespace {

// Upper bounds of the store request histogram, in seconds; +Inf implicit.
constexpr double kStoreBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                   0.05,   0.1,   0.25,   0.5,   1,    2.5,
                                   5,      10,    30,     60};
static_assert(std::size(kStoreBounds) <= kMaxBuckets);

struct VerdictLabels {
  const char* kind;
  const char* verdict;
};
constexpr VerdictLabels kVerdictLabels[kNumSnapshotVerdicts] = {
    {"validate", "ready"},
    {"validate", "failed"},
    {"scrub", "clean"},
    {"scrub", "degraded"},
};

int I(auto e) { return static_cast<int>(e); }

// Whether `store` served any request: its series are shown from then on.
bool StoreUsed(const MetricsRegion& r, int store) {
  for (const auto& by_result : r.store_requests[store]) {
    for (const CounterCell& c : by_result) {
      if (c.Get() > 0) return true;
    }
  }
  return false;
}

}  // namespace

const char* GcEpochResultName(GcEpochResult result) {
  switch (result) {
    case GcEpochResult::kCompleted:
      return "completed";
    case GcEpochResult::kDryRun:
      return "dry_run";
    case GcEpochResult::kAborted:
      return "aborted";
    case GcEpochResult::kRefused:
      return "refused";
    case GcEpochResult::kDeferred:
      return "deferred";
  }
  return "unknown";
}

const char* StoreKindName(StoreKind kind) {
  switch (kind) {
    case StoreKind::kMemory:
      return "memory";
    case StoreKind::kFile:
      return "file";
    case StoreKind::kS3:
      return "s3";
  }
  return "unknown";
}

const char* StoreOpName(StoreOp op) {
  switch (op) {
    case StoreOp::kGet:
      return "get";
    case StoreOp::kHead:
      return "head";
    case StoreOp::kPut:
      return "put";
    case StoreOp::kDelete:
      return "delete";
    case StoreOp::kList:
      return "list";
  }
  return "unknown";
}

const char* StoreResultName(StoreResult result) {
  switch (result) {
    case StoreResult::kOk:
      return "ok";
    case StoreResult::kNotFound:
      return "not_found";
    case StoreResult::kTransient:
      return "transient";
    case StoreResult::kAborted:
      return "aborted";
    case StoreResult::kError:
      return "error";
  }
  return "unknown";
}

StoreResult StoreResultOf(const Status& status) {
  if (status.ok()) return StoreResult::kOk;
  if (status.IsNotFound()) return StoreResult::kNotFound;
  if (status.IsTransient()) return StoreResult::kTransient;
  return StoreResult::kError;
}

void Metrics::CountSnapshotVerdict(SnapshotVerdict verdict) {
  if (region_ != nullptr) region_->verdicts[I(verdict)].Add(1);
}

void Metrics::CountGcEpoch(GcEpochResult result) {
  if (region_ != nullptr) region_->gc_epochs[I(result)].Add(1);
}

void Metrics::CountGcDeleted(int64_t objects, int64_t bytes) {
  if (region_ == nullptr) return;
  if (objects > 0) {
    region_->gc_objects_deleted.Add(static_cast<uint64_t>(objects));
  }
  if (bytes > 0) region_->gc_bytes_deleted.Add(static_cast<uint64_t>(bytes));
}

void Metrics::ObserveStoreRequest(StoreKind store, StoreOp op,
                                  StoreResult result, double seconds) {
  if (region_ == nullptr) return;
  region_->store_requests[I(store)][I(op)][I(result)].Add(1);
  region_->store_durations[I(store)][I(op)].Observe(kStoreBounds, seconds);
}

void Metrics::CountStoreBytesRead(StoreKind store, uint64_t bytes) {
  if (region_ != nullptr) region_->store_bytes_read[I(store)].Add(bytes);
}

void Metrics::RenderStorage(PromText* out) const {
  const MetricsRegion& r = *region_;
  const char* name = "awc_snapshot_verdicts_total";
  out->Family(name,
              "Snapshot verdicts committed: validate (ready, failed) and "
              "scrub (clean, degraded).",
              MetricType::kCounter);
  for (int v = 0; v < kNumSnapshotVerdicts; ++v) {
    out->Sample(name,
                {{"kind", kVerdictLabels[v].kind},
                 {"verdict", kVerdictLabels[v].verdict}},
                r.verdicts[v].Get());
  }
  name = "awc_gc_epochs_total";
  out->Family(name,
              "GC sweeps by result: an epoch completed, dry run, aborted or "
              "refused, or the sweep deferred (tenant locked).",
              MetricType::kCounter);
  for (int e = 0; e < kNumGcEpochResults; ++e) {
    out->Sample(name,
                {{"result", GcEpochResultName(static_cast<GcEpochResult>(e))}},
                r.gc_epochs[e].Get());
  }
  out->Family("awc_gc_objects_deleted_total",
              "Objects deleted from the store by GC.", MetricType::kCounter);
  out->Sample("awc_gc_objects_deleted_total", {}, r.gc_objects_deleted.Get());
  out->Family("awc_gc_bytes_deleted_total",
              "Bytes of the objects deleted from the store by GC.",
              MetricType::kCounter);
  out->Sample("awc_gc_bytes_deleted_total", {}, r.gc_bytes_deleted.Get());

  const char* requests = "awc_store_requests_total";
  const char* duration = "awc_store_request_duration_seconds";
  const char* bytes = "awc_store_bytes_read_total";
  out->Family(requests, "Object store requests, by store, op and result.",
              MetricType::kCounter);
  for (int s = 0; s < kNumStoreKinds; ++s) {
    if (!StoreUsed(r, s)) continue;
    for (int o = 0; o < kNumStoreOps; ++o) {
      for (int x = 0; x < kNumStoreResults; ++x) {
        out->Sample(requests,
                    {{"store", StoreKindName(static_cast<StoreKind>(s))},
                     {"op", StoreOpName(static_cast<StoreOp>(o))},
                     {"result", StoreResultName(static_cast<StoreResult>(x))}},
                    r.store_requests[s][o][x].Get());
      }
    }
  }
  out->Family(duration, "Object store request time, by store and op.",
              MetricType::kHistogram);
  for (int s = 0; s < kNumStoreKinds; ++s) {
    if (!StoreUsed(r, s)) continue;
    for (int o = 0; o < kNumStoreOps; ++o) {
      const Label labels[] = {
          {"store", StoreKindName(static_cast<StoreKind>(s))},
          {"op", StoreOpName(static_cast<StoreOp>(o))}};
      r.store_durations[s][o].Render(out, duration, labels, kStoreBounds);
    }
  }
  out->Family(bytes, "Bytes read from the object store, by store.",
              MetricType::kCounter);
  for (int s = 0; s < kNumStoreKinds; ++s) {
    if (!StoreUsed(r, s)) continue;
    out->Sample(bytes, {{"store", StoreKindName(static_cast<StoreKind>(s))}},
                r.store_bytes_read[s].Get());
  }
}

double Metrics::SnapshotVerdicts(SnapshotVerdict verdict) const {
  return region_ != nullptr
             ? static_cast<double>(region_->verdicts[I(verdict)].Get())
             : 0;
}

double Metrics::GcEpochs(GcEpochResult result) const {
  return region_ != nullptr
             ? static_cast<double>(region_->gc_epochs[I(result)].Get())
             : 0;
}

double Metrics::GcDeletedObjects() const {
  return region_ != nullptr
             ? static_cast<double>(region_->gc_objects_deleted.Get())
             : 0;
}

double Metrics::GcDeletedBytes() const {
  return region_ != nullptr
             ? static_cast<double>(region_->gc_bytes_deleted.Get())
             : 0;
}

double Metrics::StoreRequests(StoreKind store, StoreOp op,
                              StoreResult result) const {
  if (region_ == nullptr) return 0;
  return static_cast<double>(
      region_->store_requests[I(store)][I(op)][I(result)].Get());
}

double Metrics::StoreBytesRead(StoreKind store) const {
  return region_ != nullptr
             ? static_cast<double>(region_->store_bytes_read[I(store)].Get())
             : 0;
}

}  // namespace awc::obs
