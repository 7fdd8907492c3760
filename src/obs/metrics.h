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
//    holding it cannot wedge the others. Every other label is a closed set
//    whose values belong to the module that owns the vocabulary
//    (MakeLabels); its label sets are declared (Declare) by whoever knows
//    them all, and shown at 0 from then on: the daemon declares the
//    verdicts and GC epochs at startup, the metered store every op and
//    result of its store with its first request.
//  - RenderPrometheus() writes the text exposition format 0.0.4
//    (prom_text.h) of the families of the region: every family of
//    metric_families.h but those read at scrape time, each with HELP and
//    TYPE even before anything was recorded.
//  - The families read at scrape time in the master (awc_build_info,
//    awc_workers{phase}, process_*) are not in the region: scrape.h adds
//    them to the body of /metrics.
//
// The families, their names and labels: metric_families.h (a contract with
// dashboards and alerts; docs/observability.md, "Observability").
#ifndef AWC_OBS_METRICS_H_
#define AWC_OBS_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/status.h"
#include "obs/metric_families.h"

namespace awc::obs {

inline constexpr int kMaxLabelSets = 128;
inline constexpr size_t kMaxLabelValue = 95;
inline constexpr std::string_view kOverflowLabel = "cardinality_overflow";

// The label values of a label set from its parts, in label order: strings
// as they are, and values of a closed label, whose own module names them
// with MetricLabels(value), found by argument-dependent lookup (e.g.
// gc/epoch_result.h, store/store_request.h), one value or more each. obs/
// renders labels and knows nothing of the vocabularies above it.
template <typename... Parts>
LabelValues MakeLabels(const Parts&... parts) {
  LabelValues out{};
  size_t n = 0;
  auto put = [&](const auto& part) {
    if constexpr (std::is_convertible_v<decltype(part), std::string_view>) {
      if (n < out.size()) out[n++] = part;
    } else {
      for (std::string_view v : MetricLabels(part)) {
        if (n < out.size()) out[n++] = v;
      }
    }
  };
  (put(parts), ...);
  return out;
}

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
  // A transient error of a worker's claim or record; any other database
  // error of a worker is CountOtherDatabaseError's.
  void CountApiError() { Add(MetricId::kApiErrors, {}); }  // "worker"
  void CountOtherDatabaseError() {
    Add(MetricId::kWorkerOtherDatabaseErrors, {});
  }
  void CountRestart() { Add(MetricId::kWorkerRestarts, {}); }
  void SetWorkersRunning(int n) {
    Set(MetricId::kWorkersRunning, {}, static_cast<double>(n));
  }
  void CountLeaseReclaim() { Add(MetricId::kLeaseReclaims, {}); }
  void CountCrashRequeue() { Add(MetricId::kCrashRequeues, {}); }
  void CountSilentHolderReclaim() { Add(MetricId::kSilentWorkerReclaims, {}); }

  // The scheduler's (docs/scheduler.md, "Scheduler"), the queue's depth
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
  template <typename QueueState>  // queue/job.h
  void SetQueueJobs(std::string_view kind, QueueState state, int64_t n) {
    Set(MetricId::kQueueJobs, MakeLabels(kind, state), static_cast<double>(n));
  }
  void SetQueueOldestPending(std::string_view kind, double seconds) {
    Set(MetricId::kQueueOldestPending, {kind}, seconds);
  }
  // `priority` is its label value, "0" to "9".
  void SetQueuePriorityOldestReady(std::string_view priority, double seconds) {
    Set(MetricId::kQueuePriorityOldestReady, {priority}, seconds);
  }
  // The horizon's sample (queue/horizon.h).
  void SetDatabaseHorizon(int64_t xids, double held_secs) {
    Set(MetricId::kDatabaseHorizonXids, {}, static_cast<double>(xids));
    Set(MetricId::kDatabaseHorizonHeld, {}, held_secs);
  }

  // Verdicts and the store; their vocabularies: catalog/snapshot_verdict.h,
  // gc/epoch_result.h, store/store_request.h. Negative amounts are ignored.
  template <typename SnapshotVerdict>
  void CountSnapshotVerdict(SnapshotVerdict verdict) {
    Add(MetricId::kSnapshotVerdicts, MakeLabels(verdict));
  }
  template <typename GcEpochResult>
  void CountGcEpoch(GcEpochResult result) {
    Add(MetricId::kGcEpochs, MakeLabels(result));
  }
  void CountGcDeleted(int64_t objects, int64_t bytes) {
    if (objects > 0) Add(MetricId::kGcObjectsDeleted, {}, objects);
    if (bytes > 0) Add(MetricId::kGcBytesDeleted, {}, bytes);
  }
  // One attempt to restore an object from the repair store; `result` is a
  // closed set (handlers/object_repair.h).
  void CountRepair(std::string_view result) {
    Add(MetricId::kRepairs, {result});
  }
  // The scrub planner's sample of the coverage promise.
  void SetScrubCoverage(double oldest_unverified_secs, double verified_ratio,
                        double required_bytes_per_sec,
                        double budget_bytes_per_sec) {
    Set(MetricId::kScrubOldestUnverified, {}, oldest_unverified_secs);
    Set(MetricId::kScrubVerifiedRatio, {}, verified_ratio);
    Set(MetricId::kScrubRequiredRate, {}, required_bytes_per_sec);
    Set(MetricId::kScrubBudgetRate, {}, budget_bytes_per_sec);
  }
  // What a stretch of an inventory reconciliation found.
  void CountReconciled(int64_t orphans, int64_t orphan_bytes, int64_t missing) {
    if (orphans > 0) Add(MetricId::kReconcileOrphans, {}, orphans);
    if (orphan_bytes > 0)
      Add(MetricId::kReconcileOrphanBytes, {}, orphan_bytes);
    if (missing > 0) Add(MetricId::kReconcileMissingObjects, {}, missing);
  }
  // A store's series appear once declared (worker/metered_store.h: with its
  // first request, every op and result).
  template <typename Scheme, typename StoreOp, typename StoreResult>
  void ObserveStoreRequest(Scheme store, StoreOp op, StoreResult result,
                           double seconds) {
    Add(MetricId::kStoreRequests, MakeLabels(store, op, result));
    Observe(MetricId::kStoreRequestDuration, MakeLabels(store, op), seconds);
  }
  template <typename Scheme>
  void CountStoreBytesRead(Scheme store, uint64_t bytes) {
    Add(MetricId::kStoreBytesRead, MakeLabels(store), bytes);
  }

  std::string RenderPrometheus() const;

 private:
  explicit Metrics(MetricsRegion* region) : region_(region) {}
  // The value of a series: a counter's count, a gauge's value, a
  // histogram's count; 0 for a label set never recorded.
  double Read(MetricId id, const LabelValues& labels) const;

  friend class MetricsTestPeer;  // metrics_testing.cc: the read-backs
  MetricsRegion* region_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_H_
