// The closed label sets of what the handlers find and do to the store:
// snapshot verdicts, GC epochs, and the store's requests (metrics.h).
#include "obs/metrics.h"

namespace awc::obs {
namespace {

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

}  // namespace

LabelValues SnapshotVerdictLabels(SnapshotVerdict v) {
  int i = static_cast<int>(v);
  return {kVerdictLabels[i].kind, kVerdictLabels[i].verdict};
}

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

void Metrics::DeclareClosedSets() {
  for (int v = 0; v < kNumSnapshotVerdicts; ++v) {
    Declare(MetricId::kSnapshotVerdicts,
            SnapshotVerdictLabels(static_cast<SnapshotVerdict>(v)));
  }
  for (int e = 0; e < kNumGcEpochResults; ++e) {
    Declare(MetricId::kGcEpochs,
            {GcEpochResultName(static_cast<GcEpochResult>(e))});
  }
}

void Metrics::CountSnapshotVerdict(SnapshotVerdict verdict) {
  Add(MetricId::kSnapshotVerdicts, SnapshotVerdictLabels(verdict));
}

void Metrics::ObserveStoreRequest(StoreKind store, StoreOp op,
                                  StoreResult result, double seconds) {
  const char* kind = StoreKindName(store);
  if (!Has(MetricId::kStoreBytesRead, {kind})) {
    // Its first request: every op and result, in order; the bytes read
    // last, so that its series says the others are there.
    for (int o = 0; o < kNumStoreOps; ++o) {
      const char* op_name = StoreOpName(static_cast<StoreOp>(o));
      for (int x = 0; x < kNumStoreResults; ++x) {
        Declare(MetricId::kStoreRequests,
                {kind, op_name, StoreResultName(static_cast<StoreResult>(x))});
      }
    }
    for (int o = 0; o < kNumStoreOps; ++o) {
      Declare(MetricId::kStoreRequestDuration,
              {kind, StoreOpName(static_cast<StoreOp>(o))});
    }
    Declare(MetricId::kStoreBytesRead, {kind});
  }
  Add(MetricId::kStoreRequests,
      {kind, StoreOpName(op), StoreResultName(result)});
  Observe(MetricId::kStoreRequestDuration, {kind, StoreOpName(op)}, seconds);
}

}  // namespace awc::obs
