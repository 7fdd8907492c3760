// Metrics: the instruments of awc-worker, kept in a fixed-size region of
// shared memory.
//
// Contract:
//  - The region is mapped (MAP_SHARED | MAP_ANONYMOUS) by the parent before
//    it forks, so every child records into the same counters and nothing is
//    lost when a child crashes. No pointers live in the region.
//  - Recording never blocks and never fails. Instruments labelled with
//    values known only at run time (job kinds) keep up to kMaxLabelSets
//    label sets each; later ones are recorded under the label value
//    "cardinality_overflow" (every label of the set takes that value),
//    which does not count against the cap. A label value longer than
//    kMaxLabelValue bytes (or holding a NUL byte) overflows too. Allocating
//    a label set takes a process-shared robust mutex, so a child that dies
//    holding it cannot wedge the others. Every other label is a closed set
//    fixed at compile time (the enums below).
//  - RenderPrometheus() writes the text exposition format 0.0.4
//    (prom_text.h): every instrument with HELP and TYPE, even before
//    anything was recorded; the label sets of closed-set instruments are
//    all present from the start (at 0), except the store instruments,
//    whose series for a store appear with its first request.
//  - The instruments read at scrape time in the master (awc_build_info,
//    awc_workers{phase}, process_*) are not in the region: scrape.h adds
//    them to the body of /metrics.
//
// Instruments (names and labels are a contract with dashboards and alerts;
// docs/ARCHITECTURE.md, "Observability"):
//   awc_background_jobs_total{kind,outcome}       counter
//   awc_background_job_lag_seconds{kind}          gauge (last value)
//   awc_api_errors_total{component="worker"}      counter
//   awc_background_job_duration_seconds{kind}     histogram, 5 ms .. 600 s
//   awc_worker_restarts_total                     counter
//   awc_workers_running                           gauge (set by the parent)
//   awc_lease_reclaims_total                      counter
//   awc_scheduler_leader                          gauge (set by the scheduler,
//                                                 reset by the parent)
//   awc_schedule_runs_total{schedule,result}      counter
//   awc_scheduler_jobs_enqueued_total{schedule}   counter
//   awc_queue_jobs{kind,state}                    gauge: pending, running,
//                                                 failed (dead letters);
//                                                 sampled by the scheduler
//   awc_queue_oldest_pending_seconds{kind}        gauge, sampled likewise
//   awc_snapshot_verdicts_total{kind,verdict}     counter: kind validate
//                                                 (ready, failed) or scrub
//                                                 (clean, degraded)
//   awc_gc_epochs_total{result}                   counter: completed,
//                                                 dry_run, aborted, refused,
//                                                 deferred
//   awc_gc_objects_deleted_total                  counter
//   awc_gc_bytes_deleted_total                    counter
//   awc_store_requests_total{store,op,result}     counter
//   awc_store_request_duration_seconds{store,op}  histogram, 0.5 ms .. 60 s
//   awc_store_bytes_read_total{store}             counter
//   awc_build_info{version,s3}                    gauge, 1 (scrape.h)
//   awc_workers{phase}                            gauge (scrape.h)
//   process_cpu_seconds_total, process_resident_memory_bytes,
//   process_virtual_memory_bytes, process_start_time_seconds,
//   process_open_fds, process_max_fds             of the master (scrape.h)
#ifndef AWC_OBS_METRICS_H_
#define AWC_OBS_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

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
class PromText;

class Metrics {
 public:
  // Maps a new zeroed shared region. Call in the parent, before fork().
  static Result<Metrics> CreateShared();
  ~Metrics();
  Metrics(Metrics&& other) noexcept;
  Metrics& operator=(Metrics&&) = delete;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Jobs and processes (metrics.cc).
  void CountJob(std::string_view kind, std::string_view outcome);
  void SetJobLag(std::string_view kind, double seconds);
  void ObserveJobDuration(std::string_view kind, double seconds);
  void CountApiError();  // component="worker"
  void CountRestart();
  void SetWorkersRunning(int n);
  void CountLeaseReclaim();

  // The scheduler's (scheduler_metrics.cc; docs/ARCHITECTURE.md,
  // "Scheduler"), the queue's depth included: the scheduler process is the
  // one sampler of its host.
  void CountScheduleRun(std::string_view schedule, std::string_view result);
  void CountScheduleEnqueued(std::string_view schedule, int64_t n);
  void SetSchedulerLeader(bool leader);
  void SetQueueJobs(std::string_view kind, QueueState state, int64_t n);
  void SetQueueOldestPending(std::string_view kind, double seconds);

  // Verdicts and the store (storage_metrics.cc). Negative amounts are
  // ignored.
  void CountSnapshotVerdict(SnapshotVerdict verdict);
  void CountGcEpoch(GcEpochResult result);
  void CountGcDeleted(int64_t objects, int64_t bytes);
  void ObserveStoreRequest(StoreKind store, StoreOp op, StoreResult result,
                           double seconds);
  void CountStoreBytesRead(StoreKind store, uint64_t bytes);

  std::string RenderPrometheus() const;

  // Current values, for tests and the supervisor's status line. Label sets
  // that were never recorded read 0, and so do those recorded under the
  // overflow; pass kOverflowLabel for every label to read the overflow.
  double JobCount(std::string_view kind, std::string_view outcome) const;
  double JobLag(std::string_view kind) const;
  double ApiErrors() const;
  double TotalJobs() const;
  double LeaseReclaims() const;
  double ScheduleRuns(std::string_view schedule, std::string_view result) const;
  double ScheduleEnqueued(std::string_view schedule) const;
  bool SchedulerLeader() const;
  double QueueJobs(std::string_view kind, QueueState state) const;
  double QueueOldestPending(std::string_view kind) const;
  double SnapshotVerdicts(SnapshotVerdict verdict) const;
  double GcEpochs(GcEpochResult result) const;
  double GcDeletedObjects() const;
  double GcDeletedBytes() const;
  double StoreRequests(StoreKind store, StoreOp op, StoreResult result) const;
  double StoreBytesRead(StoreKind store) const;

 private:
  explicit Metrics(MetricsRegion* region) : region_(region) {}
  // Append the instruments of scheduler_metrics.cc and storage_metrics.cc.
  void RenderScheduler(PromText* out) const;
  void RenderStorage(PromText* out) const;

  MetricsRegion* region_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_H_
