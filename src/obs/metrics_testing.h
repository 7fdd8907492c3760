// Test-only read-backs of the shared instruments (metrics.h) and the seam
// of the slot allocation (metric_cells.h); compiled into awc_testing only
// (docs/ARCHITECTURE.md, "Where code goes").
//
// Label sets that were never recorded read 0, and so do those recorded
// under the overflow; pass kOverflowLabel for every label to read the
// overflow.
#ifndef AWC_OBS_METRICS_TESTING_H_
#define AWC_OBS_METRICS_TESTING_H_

#include <string_view>

#include "obs/metric_families.h"
#include "obs/metrics.h"

namespace awc::obs {
namespace internal {

// `hook` runs while a new slot is being allocated, with the allocation
// mutex held and the label values written but not yet published, so a test
// can kill the process at the worst moment; nullptr removes it.
void SetSlotAllocationHookForTest(void (*hook)());

}  // namespace internal

namespace testing {

// The value of a series of the region: a counter's count, a gauge's value,
// a histogram's count.
double Read(const Metrics& m, MetricId id, const LabelValues& labels);

double JobCount(const Metrics& m, std::string_view kind,
                std::string_view outcome);
double JobLag(const Metrics& m, std::string_view kind);
double ApiErrors(const Metrics& m);
double OtherDatabaseErrors(const Metrics& m);
double TotalJobs(const Metrics& m);  // every label set, the overflow too
double LeaseReclaims(const Metrics& m);
double ScheduleRuns(const Metrics& m, std::string_view schedule,
                    std::string_view result);
double ScheduleEnqueued(const Metrics& m, std::string_view schedule);
double QueueOldestPending(const Metrics& m, std::string_view kind);
double QueuePriorityOldestReady(const Metrics& m, std::string_view priority);
double GcDeletedObjects(const Metrics& m);
double GcDeletedBytes(const Metrics& m);

// Those of closed labels, with their values as MakeLabels (metrics.h)
// takes them: strings, or the values of their own modules.
template <typename QueueState>
double QueueJobs(const Metrics& m, std::string_view kind, QueueState state) {
  return Read(m, MetricId::kQueueJobs, MakeLabels(kind, state));
}
template <typename SnapshotVerdict>
double SnapshotVerdicts(const Metrics& m, SnapshotVerdict verdict) {
  return Read(m, MetricId::kSnapshotVerdicts, MakeLabels(verdict));
}
template <typename GcEpochResult>
double GcEpochs(const Metrics& m, GcEpochResult result) {
  return Read(m, MetricId::kGcEpochs, MakeLabels(result));
}
template <typename Scheme, typename StoreOp, typename StoreResult>
double StoreRequests(const Metrics& m, Scheme store, StoreOp op,
                     StoreResult result) {
  return Read(m, MetricId::kStoreRequests, MakeLabels(store, op, result));
}
template <typename Scheme>
double StoreBytesRead(const Metrics& m, Scheme store) {
  return Read(m, MetricId::kStoreBytesRead, MakeLabels(store));
}

}  // namespace testing
}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_TESTING_H_
