// What snapshot_validate and snapshot_scrub decide about a snapshot, as
// awc_snapshot_verdicts_total{kind,verdict} counts it once the verdict
// committed: validated READY or FAILED, scrubbed clean or DEGRADED
// (states.h).
#ifndef AWC_CATALOG_SNAPSHOT_VERDICT_H_
#define AWC_CATALOG_SNAPSHOT_VERDICT_H_

#include <array>
#include <string_view>

namespace awc::catalog {

enum class SnapshotVerdict {
  kValidateReady,
  kValidateFailed,
  kScrubClean,
  kScrubDegraded,
};

struct SnapshotVerdictRow {
  SnapshotVerdict value;
  const char* kind;     // which handler: "validate" or "scrub"
  const char* verdict;  // "ready", "failed"; "clean", "degraded"
};
inline constexpr SnapshotVerdictRow kSnapshotVerdicts[] = {
    {SnapshotVerdict::kValidateReady, "validate", "ready"},
    {SnapshotVerdict::kValidateFailed, "validate", "failed"},
    {SnapshotVerdict::kScrubClean, "scrub", "clean"},
    {SnapshotVerdict::kScrubDegraded, "scrub", "degraded"},
};

// Its label values in the metrics, kind and verdict (obs/metrics.h,
// MakeLabels).
std::array<std::string_view, 2> MetricLabels(SnapshotVerdict verdict);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_SNAPSHOT_VERDICT_H_
