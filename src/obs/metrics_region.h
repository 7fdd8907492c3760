// The layout of the shared metrics region (metrics.h). Private to the
// files of obs/ that implement Metrics, one per instrument family.
#ifndef AWC_OBS_METRICS_REGION_H_
#define AWC_OBS_METRICS_REGION_H_

#include <type_traits>

#include "obs/metric_cells.h"
#include "obs/metrics.h"

namespace awc::obs {

// The families of label sets, by index into MetricsRegion::families.
enum FamilyIndex {
  kJobsFamily,
  kLagFamily,
  kDurationFamily,
  kScheduleRunsFamily,
  kScheduleEnqueuedFamily,
  kQueueJobsFamily,
  kQueueOldestFamily,
  kNumFamilies
};

struct MetricsRegion {
  Family families[kNumFamilies];
  CounterCell api_errors;
  CounterCell restarts;
  GaugeCell workers_running;
  CounterCell lease_reclaims;

  // scheduler_metrics.cc (and the families above)
  GaugeCell scheduler_leader;

  // storage_metrics.cc
  CounterCell verdicts[kNumSnapshotVerdicts];
  CounterCell gc_epochs[kNumGcEpochResults];
  CounterCell gc_objects_deleted;
  CounterCell gc_bytes_deleted;
  CounterCell store_requests[kNumStoreKinds][kNumStoreOps][kNumStoreResults];
  HistogramCell store_durations[kNumStoreKinds][kNumStoreOps];
  CounterCell store_bytes_read[kNumStoreKinds];
};

static_assert(std::is_trivially_destructible_v<MetricsRegion>,
              "the shared region is unmapped, never destroyed");

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_REGION_H_
