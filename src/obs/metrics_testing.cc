#include "obs/metrics_testing.h"

#include "obs/metric_cells.h"
#include "obs/metrics_region.h"

namespace awc::obs {

// Reaches what the read-backs read (metrics.h names it a friend).
class MetricsTestPeer {
 public:
  static double Read(const Metrics& m, MetricId id, const LabelValues& l) {
    return m.Read(id, l);
  }
  static const MetricsRegion* Region(const Metrics& m) { return m.region_; }
};

namespace internal {

void SetSlotAllocationHookForTest(void (*hook)()) {
  g_slot_allocation_hook_for_test = hook;
}

}  // namespace internal

namespace testing {

double Read(const Metrics& m, MetricId id, const LabelValues& labels) {
  return MetricsTestPeer::Read(m, id, labels);
}

double JobCount(const Metrics& m, std::string_view kind,
                std::string_view outcome) {
  return Read(m, MetricId::kBackgroundJobs, {kind, outcome});
}

double JobLag(const Metrics& m, std::string_view kind) {
  return Read(m, MetricId::kJobLag, {kind});
}

double ApiErrors(const Metrics& m) { return Read(m, MetricId::kApiErrors, {}); }
double OtherDatabaseErrors(const Metrics& m) {
  return Read(m, MetricId::kWorkerOtherDatabaseErrors, {});
}

double TotalJobs(const Metrics& m) {
  const MetricsRegion* region = MetricsTestPeer::Region(m);
  if (region == nullptr) return 0;
  const MetricFamily& f = FamilyOf(MetricId::kBackgroundJobs);
  uint64_t total = 0;
  region->families[SlotOf(f.id)].ForEach(
      NumLabels(f), [&](const LabelValues&, const FamilySeries& s) {
        total += s.counter.Get();
      });
  return static_cast<double>(total);
}

double LeaseReclaims(const Metrics& m) {
  return Read(m, MetricId::kLeaseReclaims, {});
}

double ScheduleRuns(const Metrics& m, std::string_view schedule,
                    std::string_view result) {
  return Read(m, MetricId::kScheduleRuns, {schedule, result});
}

double ScheduleEnqueued(const Metrics& m, std::string_view schedule) {
  return Read(m, MetricId::kScheduleEnqueued, {schedule});
}

double QueueOldestPending(const Metrics& m, std::string_view kind) {
  return Read(m, MetricId::kQueueOldestPending, {kind});
}

double QueuePriorityOldestReady(const Metrics& m, std::string_view priority) {
  return Read(m, MetricId::kQueuePriorityOldestReady, {priority});
}

double GcDeletedObjects(const Metrics& m) {
  return Read(m, MetricId::kGcObjectsDeleted, {});
}

double GcDeletedBytes(const Metrics& m) {
  return Read(m, MetricId::kGcBytesDeleted, {});
}

}  // namespace testing
}  // namespace awc::obs
