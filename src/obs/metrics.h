// Metrics: the instruments of awc-worker, kept in a fixed-size region of
// shared memory.
//
// Contract:
//  - The region is mapped (MAP_SHARED | MAP_ANONYMOUS) by the parent before
//    it forks, so every child records into the same counters and nothing is
//    lost when a child crashes. No pointers live in the region.
//  - Recording never blocks and never fails. Families labelled with values
//    known only at run time (job kinds, schedules) keep up to kMaxLabelSets
//    label sets each; later ones are recorded under the label value
//    "cardinality_overflow" (every label of the set takes that value),
//    which does not count against the cap. A label value longer than
//    kMaxLabelValue bytes (or holding a NUL byte) overflows too. Allocating
//    a label set takes a process-shared robust mutex, so a child that dies
//    holding it cannot wedge the others. Every other label is a closed set:
//    its label sets are declared up front (Declare) and shown at 0 from
//    then on.
//  - RenderPrometheus() writes the text exposition format 0.0.4
//    (prom_text.h) of the families of the region: every family of
//    metric_families.h but those read at scrape time, each with HELP and
//    TYPE even before anything was recorded.
//  - The families read at scrape time in the master (awc_build_info,
//    awc_workers{phase}, process_*) are not in the region: scrape.h adds
//    them to the body of /metrics.
//
// The families, their names and labels: metric_families.h (a contract with
// dashboards and alerts; docs/ARCHITECTURE.md, "Observability").
#ifndef AWC_OBS_METRICS_H_
#define AWC_OBS_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "obs/metric_families.h"

namespace awc::obs {

inline constexpr int kMaxLabelSets = 128;
inline constexpr size_t kMaxLabelValue = 95;
inline constexpr std::string_view kOverflowLabel = "cardinality_overflow";

// awc_snapshot_verdicts_total: {kind="validate", verdict="ready"}, ...
enum class SnapshotVerdict {
  kValidateReady,
  kValidateFailed,
  kScrubClean,
  kScrubDegraded,
};
inline constexpr int kNumSnapshotVerdicts = 4;
LabelValues SnapshotVerdictLabels(SnapshotVerdict verdict);  // kind, verdict

// awc_gc_epochs_total{result}; kDeferred is a sweep that found its tenant
// locked by another one.
enum class GcEpochResult { kCompleted, kDryRun, kAborted, kRefused, kDeferred };
inline constexpr int kNumGcEpochResults = 5;
const char* GcEpochResultName(GcEpochResult result);

// The labels of the store instruments: which store (its URL scheme), which
// operation (Get and GetMany's requests: get; Put and PutFile: put;
// DeleteMany: delete), and how it ended: ok, not_found, transient, aborted
// (the reader stopped the transfer: a sink or a List callback returned an
// error) or error (any other error).
enum class StoreKind { kMemory, kFile, kS3 };
enum class StoreOp { kGet, kHead, kPut, kDelete, kList };
enum class StoreResult { kOk, kNotFound, kTransient, kAborted, kError };
inline constexpr int kNumStoreKinds = 3;
inline constexpr int kNumStoreOps = 5;
inline constexpr int kNumStoreResults = 5;
const char* StoreKindName(StoreKind kind);
const char* StoreOpName(StoreOp op);
const char* StoreResultName(StoreResult result);
// The result label of a store call that returned `status`.
StoreResult StoreResultOf(const Status& status);

// awc_queue_jobs{kind,state}: the states of the queue's depth sample.
enum class QueueState { kPending, kRunning, kFailed };
inline constexpr int kNumQueueStates = 3;
const char* QueueStateName(QueueState state);  // "pending", ...

struct MetricsRegion;  // the shared layout, private to obs/

class Metrics {
 public:
  // Maps a new zeroed shared region. Call in the parent, before fork().
  static Result<Metrics> CreateShared();
  ~Metrics();
  Metrics(Metrics&& other) noexcept;
  Metrics& operator=(Metrics&&) = delete;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Recording into the family `id` of the region (MetricSource kLabelSets
  // or kCell), the series of the label values `labels` (ignored by a kCell
  // family): Add counts a counter, Set sets a gauge, Observe adds to a
  // histogram (NaN is ignored, and allocates no label set). A call that
  // does not fit the family's type does nothing.
  void Add(MetricId id, const LabelValues& labels, uint64_t n = 1);
  void Set(MetricId id, const LabelValues& labels, double value);
  void Observe(MetricId id, const LabelValues& labels, double value);
  // Makes the series of `labels` present, at 0 until recorded.
  void Declare(MetricId id, const LabelValues& labels);

  // The instruments by name. Jobs and processes:
  void CountJob(std::string_view kind, std::string_view outcome) {
    Add(MetricId::kBackgroundJobs, {kind, outcome});
  }
  void SetJobLag(std::string_view kind, double seconds) {
    Set(MetricId::kJobLag, {kind}, seconds);
  }
  void ObserveJobDuration(std::string_view kind, double seconds) {
    Observe(MetricId::kJobDuration, {kind}, seconds);
  }
  void CountApiError() { Add(MetricId::kApiErrors, {}); }  // "worker"
  void CountRestart() { Add(MetricId::kWorkerRestarts, {}); }
  void SetWorkersRunning(int n) {
    Set(MetricId::kWorkersRunning, {}, static_cast<double>(n));
  }
  void CountLeaseReclaim() { Add(MetricId::kLeaseReclaims, {}); }

  // The scheduler's (docs/ARCHITECTURE.md, "Scheduler"), the queue's depth
  // included: the scheduler process is the one sampler of its host.
  void CountScheduleRun(std::string_view schedule, std::string_view result) {
    Add(MetricId::kScheduleRuns, {schedule, result});
  }
  void CountScheduleEnqueued(std::string_view schedule, int64_t n) {
    if (n >= 0) Add(MetricId::kScheduleEnqueued, {schedule}, n);
  }
  void SetSchedulerLeader(bool leader) {
    Set(MetricId::kSchedulerLeader, {}, leader ? 1.0 : 0.0);
  }
  bool SchedulerLeader() const {  // for the supervisor's status line
    return Read(MetricId::kSchedulerLeader, {}) > 0;
  }
  void SetQueueJobs(std::string_view kind, QueueState state, int64_t n) {
    Set(MetricId::kQueueJobs, {kind, QueueStateName(state)},
        static_cast<double>(n));
  }
  void SetQueueOldestPending(std::string_view kind, double seconds) {
    Set(MetricId::kQueueOldestPending, {kind}, seconds);
  }

  // Verdicts and the store. Negative amounts are ignored.
  void CountSnapshotVerdict(SnapshotVerdict verdict);
  void CountGcEpoch(GcEpochResult result) {
    Add(MetricId::kGcEpochs, {GcEpochResultName(result)});
  }
  void CountGcDeleted(int64_t objects, int64_t bytes) {
    if (objects > 0) Add(MetricId::kGcObjectsDeleted, {}, objects);
    if (bytes > 0) Add(MetricId::kGcBytesDeleted, {}, bytes);
  }
  // A store's series appear with its first request: every op and result.
  void ObserveStoreRequest(StoreKind store, StoreOp op, StoreResult result,
                           double seconds);
  void CountStoreBytesRead(StoreKind store, uint64_t bytes) {
    Add(MetricId::kStoreBytesRead, {StoreKindName(store)}, bytes);
  }

  std::string RenderPrometheus() const;

 private:
  explicit Metrics(MetricsRegion* region) : region_(region) {}
  // Declares every snapshot verdict and GC epoch result (storage_metrics.cc).
  void DeclareClosedSets();
  // The value of a series: a counter's count, a gauge's value, a
  // histogram's count; 0 for a label set never recorded.
  double Read(MetricId id, const LabelValues& labels) const;
  // Whether the series of `labels` was recorded or declared.
  bool Has(MetricId id, const LabelValues& labels) const;

  friend class MetricsTestPeer;  // metrics_testing.cc: the read-backs
  MetricsRegion* region_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_H_
