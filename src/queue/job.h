// The vocabulary of the queue: a claimed job, job states, handler outcomes.
#ifndef AWC_QUEUE_JOB_H_
#define AWC_QUEUE_JOB_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace awc::queue {

// awc.jobs.state; kOther stands for any text outside the list (a state a
// newer schema added), so reading a row never fails on it.
enum class JobState {
  kPending,
  kRunning,
  kCompleted,
  kFailed,
  kCancelled,
  kOther
};

struct JobStateRow {
  JobState value;
  const char* name;  // the SQL literal: "PENDING", ...
  // The closed `outcome` label of metrics and events for a job left in this
  // state: completed, failed, cancelled, retried (PENDING), other.
  const char* outcome;
};

// Every state a job can be in (kOther is none of them), in the order
// listings show them.
inline constexpr JobStateRow kJobStates[] = {
    {JobState::kPending, "PENDING", "retried"},
    {JobState::kRunning, "RUNNING", "other"},
    {JobState::kCompleted, "COMPLETED", "completed"},
    {JobState::kFailed, "FAILED", "failed"},
    {JobState::kCancelled, "CANCELLED", "cancelled"},
};

// The state named `text`; kOther for anything else.
JobState ParseJobState(std::string_view text);
const char* JobStateName(JobState state);  // "PENDING", ...; "OTHER"

// The outcome label of a job left in `state` (kJobStates); "other" for
// kOther.
const char* OutcomeLabel(JobState state);

// Why a job was dead-lettered (awc.jobs.dead_reason); kNone while it is not
// FAILED, and for a FAILED row written outside the worker.
enum class DeadReason {
  kNone,
  kMalformedPayload,   // its payload is not JSON or its decoder refused it
  kUnknownKind,        // no handler is registered for its kind
  kSubjectMissing,     // the snapshot, workspace or tenant it names is gone
  kAttemptsExhausted,  // retried (or its lease expired) max_attempts times
  kHandlerFailed,      // its handler failed it for good
  kWorkerCrashed,      // its worker died running it, max_attempts times
};

struct DeadReasonRow {
  DeadReason value;
  const char* name;  // the SQL literal
};

// Every recorded reason (kNone is none of them), in the order listings
// show them.
inline constexpr DeadReasonRow kDeadReasons[] = {
    {DeadReason::kMalformedPayload, "malformed_payload"},
    {DeadReason::kUnknownKind, "unknown_kind"},
    {DeadReason::kSubjectMissing, "subject_missing"},
    {DeadReason::kAttemptsExhausted, "attempts_exhausted"},
    {DeadReason::kHandlerFailed, "handler_failed"},
    {DeadReason::kWorkerCrashed, "worker_crashed"},
};

// "malformed_payload", ... ("" for kNone): the SQL literals.
const char* DeadReasonName(DeadReason reason);
// The reason named `text`; kNone for "" and anything else.
DeadReason ParseDeadReason(std::string_view text);

// The states the queue's depth sample counts (queue_stats.h, Depth), as
// awc_queue_jobs{kind,state} shows them.
enum class QueueState { kPending, kRunning, kFailed };

struct QueueStateRow {
  QueueState value;
  const char* name;  // the label value: "pending", ...
  JobState state;    // the jobs' state it counts (FAILED: dead letters)
};
inline constexpr QueueStateRow kQueueStates[] = {
    {QueueState::kPending, "pending", JobState::kPending},
    {QueueState::kRunning, "running", JobState::kRunning},
    {QueueState::kFailed, "failed", JobState::kFailed},
};

const char* QueueStateName(QueueState state);
// Its label value in the metrics (obs/metrics.h, MakeLabels).
std::array<std::string_view, 1> MetricLabels(QueueState state);

// A job's priority runs from 0, the most urgent, to kPriorityCount - 1
// (awc.jobs.priority, migrations/0023_kind_settings.sql); a kind that
// awc.kind_settings does not name has kDefaultPriority.
inline constexpr int kPriorityCount = 10;
inline constexpr int kDefaultPriority = 4;

// A job this worker holds a lease on.
struct Job {
  int64_t id = 0;
  std::string kind;
  std::string payload;  // JSON text as stored
  int attempts = 0;     // including this claim
  int max_attempts = 0;
  int64_t lease_token = 0;
  // When it became ready: run_at, or its insertion if run_at is earlier;
  // database clock, epoch seconds.
  double run_at = 0;
  int priority = 0;  // 0 (most urgent) to 9; docs/queue.md, "Priorities"
};

// What a handler returns; the worker records it.
struct Outcome {
  enum class Kind {
    kComplete,  // -> COMPLETED with `result`
    kRetry,     // -> PENDING after backoff, or FAILED when attempts are spent
    kFail,      // -> FAILED now (dead letter, for `reason`)
    kDefer,     // -> PENDING after `delay_secs`, no attempt spent
  };
  Kind kind = Kind::kComplete;
  std::string result = "{}";  // JSON object, for kComplete
  std::string error;          // for kRetry and kFail; stored in last_error
  double delay_secs = 0;      // for kDefer
  DeadReason reason = DeadReason::kNone;  // for kFail

  static Outcome Complete(std::string result_json) {
    return {Kind::kComplete, std::move(result_json), {}, 0};
  }
  static Outcome Retry(std::string error) {
    return {Kind::kRetry, "{}", std::move(error), 0};
  }
  static Outcome Fail(std::string error,
                      DeadReason reason = DeadReason::kHandlerFailed) {
    return {Kind::kFail, "{}", std::move(error), 0, reason};
  }
  static Outcome Defer(double delay_secs, std::string reason) {
    return {Kind::kDefer, "{}", std::move(reason), delay_secs};
  }
};

// What recording an outcome did.
struct Recorded {
  bool applied = false;  // false: discarded (cancelled or reclaimed meanwhile)
  JobState state = JobState::kOther;  // the row's state afterwards
  int attempts = 0;
  double lag_secs = 0;  // ready (Job::run_at) to recorded, database clock
  DeadReason dead_reason = DeadReason::kNone;  // set when FAILED
  // A Defer that applied: PENDING again later, no attempt spent (its
  // reason is the row's last_error).
  bool deferred = false;
  // Discarded, and the row no longer carries this claim's lease token: the
  // job was taken back from this worker (reclaimed or handed back, which
  // clears the token), claimed again, or requeued by an operator. Whoever
  // did that reported the job, so this outcome is not counted again
  // (docs/observability.md, "Events"). False when applied, when the job
  // was cancelled under this claim, and when the row is gone.
  bool taken_over = false;
};

// What recording an outcome did, and the next job when one was claimed in
// the same transaction (one commit per job).
struct Finished {
  Recorded recorded;
  std::optional<Job> next;
};

// Why a RUNNING job was taken back from its holder.
enum class TakenBack {
  kLeaseExpired,  // its lease ended (kReclaim)
  kHolderSilent,  // its holder's heartbeat went stale (kReclaim)
  kWorkerDied,    // the master saw its worker die (kReleaseOrphan)
};
// The `reason` of the event that reports it: "lease_expired",
// "holder_silent", "worker_died".
const char* TakenBackName(TakenBack why);

// A RUNNING job taken back from its holder, as that left it.
struct Reclaimed {
  int64_t id = 0;
  std::string kind;
  JobState state = JobState::kOther;  // PENDING (requeued) or FAILED
  int attempts = 0;
  double lag_secs = 0;  // ready (as Job::run_at) to reclaimed, database clock
  // kAttemptsExhausted (kReclaim) or kWorkerCrashed (orphan) if FAILED.
  DeadReason dead_reason = DeadReason::kNone;
  TakenBack why = TakenBack::kLeaseExpired;
};

}  // namespace awc::queue

#endif  // AWC_QUEUE_JOB_H_
