// Worker: the loop of one worker process (a child of the supervisor),
// independent of where its jobs come from (JobSource) and where it reports
// (Reporter); worker_process.h builds the real one.
//
// Contract:
//  - Single-threaded: one database session, one event loop, one object
//    store, one job at a time.
//  - An explicit state drives the loop (reporter.h, WorkerState):
//      kConnecting --session--> kIdle --claimed--> kBusy --no next--> kIdle
//      kBusy --next claimed with the outcome--> kBusy
//      kConnecting/kIdle --stop requested--> kStopping (the loop ends)
//    A stop never interrupts kBusy: the job in flight runs to its end and
//    its outcome is recorded. kConnecting is only the start: a worker that
//    loses its session later stays kIdle (or kBusy) while it reconnects.
//  - One claim site (RecordAndClaim): expired leases are reclaimed there (at
//  most
//    once per poll interval, between 0.25 s and 10 s), then, unless a stop
//    has been requested by then, the next job is claimed — in the same
//    transaction as the outcome of the job just finished when there is one
//    (one commit per job). A job claimed that way is in flight: it runs
//    even if a stop arrives meanwhile.
//  - When nothing is ready, the worker waits for a notification of new work
//    or the poll interval, whichever comes first.
//  - The lease of the job in flight is renewed every lease/3 (running_job.h).
//  - The worker's row of awc.workers follows its state (heartbeat.h): idle,
//    busy with its job, stopped at the end. A wait for work ends early when
//    a heartbeat is due.
//  - A session that fails is replaced, with a backoff of 0.25 s doubling to
//    15 s between attempts. An outcome that could not be recorded is retried
//    (backoff 0.1 s doubling to 5 s, never interrupted by a stop) for as
//    long as the lease lasts, then left to lease expiry. When the database
//    refuses the statement for its values (kInvalidArgument, db/pg.h),
//    which no retry can fix, the outcome is recorded without the next
//    claim; refused again, the job is dead-lettered with the reason ("the
//    outcome could not be recorded: ..."); refused once more, it is given
//    up at once.
//  - At most the host's background limit of its workers run a background
//    kind at once (AWC_WORKER_BACKGROUND_CONCURRENCY): a worker that holds
//    no background place, and finds none free, claims only the other
//    kinds (docs/queue.md, "Background work").
//  - The handler's outcome is recorded as it is; an exception escaping a
//    handler is a Retry without its text (handlers/registry.h).
#ifndef AWC_WORKER_WORKER_H_
#define AWC_WORKER_WORKER_H_

#include <optional>
#include <string_view>

#include "queue/job.h"
#include "worker/heartbeat.h"
#include "worker/worker_deps.h"

namespace awc::worker {

class Worker {
 public:
  explicit Worker(WorkerDeps deps);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs until a stop is requested while no job is in flight.
  void Run();

  WorkerState state() const { return state_; }

 private:
  // A job that ran, with the outcome to record.
  struct Done {
    const queue::Job& job;
    const queue::Outcome& outcome;
  };

  void Enter(WorkerState state);
  // kConnecting and kIdle: connect, claim, or wait for work.
  void StepWithoutJob();
  // kBusy: run the job in flight and record its outcome (with the next
  // claim).
  void StepBusy();
  // Opens a session unless there is one; on failure, reports it and sets
  // the backoff before the next attempt.
  bool EnsureConnected();
  void OnDatabaseError(const Status& error, std::string_view step);
  void MaybeReclaim();
  // Hands back to the queue every job a dead worker of this host left,
  // fenced on its token (deps_.orphans).
  void ReleaseOrphans();
  // Before a claim: with a background place (kept, or taken if the host
  // has one free) the claim may return any kind; without one it leaves
  // the background kinds alone (obs/worker_status.h).
  void AdmitBackground();
  // After a claim, or an outcome given up: the place stays only while a
  // background job is in flight.
  void KeepPlaceFor(const std::optional<queue::Job>& job);
  // The one claim site (see the contract): records `done` when set and
  // claims the next job when `may_claim`, in one transaction.
  // nullopt when it failed; the failure is reported and, if `error` is not
  // null, stored there.
  std::optional<queue::Finished> RecordAndClaim(const Done* done,
                                                bool may_claim, Status* error);
  // RecordAndClaim(done) with retries until `lease_end`, or, when the database
  // refuses the values, without the claim, then as a dead letter; nullopt
  // when it gave up.
  std::optional<queue::Finished> Record(const Done& done, double lease_end);
  double Now() const { return deps_.env->NowMonotonic(); }
  double PollSecs() const {
    return static_cast<double>(deps_.options.poll_interval_ms) / 1000.0;
  }

  WorkerDeps deps_;
  Heartbeat heartbeat_;
  WorkerState state_ = WorkerState::kConnecting;
  std::optional<queue::Job> job_;  // the job in flight, while kBusy
  double reconnect_backoff_ = 0;
  double next_reclaim_ = 0;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_H_
