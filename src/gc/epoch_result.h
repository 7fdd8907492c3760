// How a gc_sweep ended, as awc_gc_epochs_total{result} counts it: an epoch
// completed, dry run, aborted or refused (gc/sweep.h), or the sweep
// deferred because another sweeper held the tenant's lock.
#ifndef AWC_GC_EPOCH_RESULT_H_
#define AWC_GC_EPOCH_RESULT_H_

#include <array>
#include <string_view>

namespace awc::gc {

enum class GcEpochResult { kCompleted, kDryRun, kAborted, kRefused, kDeferred };

struct GcEpochResultRow {
  GcEpochResult value;
  const char* name;  // the label value
};
inline constexpr GcEpochResultRow kGcEpochResults[] = {
    {GcEpochResult::kCompleted, "completed"},
    {GcEpochResult::kDryRun, "dry_run"},
    {GcEpochResult::kAborted, "aborted"},
    {GcEpochResult::kRefused, "refused"},
    {GcEpochResult::kDeferred, "deferred"},
};

const char* GcEpochResultName(GcEpochResult result);

// Its label value in the metrics (obs/metrics.h, MakeLabels).
std::array<std::string_view, 1> MetricLabels(GcEpochResult result);

}  // namespace awc::gc

#endif  // AWC_GC_EPOCH_RESULT_H_
