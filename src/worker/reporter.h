// Reporter: everything the worker loop tells the outside world — its state
// (the shared status table and the process title), the metrics and the
// structured events — behind one interface, so the loop reports without
// knowing where it goes and tests can see what it reported.
//
// Contract:
//  - Calls come from the loop's single thread, in the order things happen.
//  - Reporting never fails and never blocks on the database.
//  - Nothing reported carries a payload or the error text a handler
//    returned (docs/observability.md, "Observability").
#ifndef AWC_WORKER_REPORTER_H_
#define AWC_WORKER_REPORTER_H_

#include <string_view>

#include "common/status.h"
#include "queue/job.h"

namespace awc::worker {

// The state driving the worker loop.
enum class WorkerState {
  kConnecting,  // started; no database session yet
  kIdle,        // no job in flight: reclaim, claim, wait for work
  kBusy,        // a job in flight: run its handler, record its outcome
  kStopping,    // a stop was requested with no job in flight; the loop ends
};

const char* WorkerStateName(WorkerState state);

// The steps of the one claim site (Reporter::DatabaseError): a claim alone,
// and the record of an outcome with the next claim.
inline constexpr std::string_view kClaimStep = "claim";
inline constexpr std::string_view kRecordStep = "record";

class Reporter {
 public:
  virtual ~Reporter() = default;

  // The loop entered `state`; `job` is the job in flight when kBusy (each
  // new job is reported, also one claimed while the previous was busy),
  // otherwise null.
  virtual void StateChanged(WorkerState state, const queue::Job* job) = 0;
  // How far the running job has got, as one line (obs/progress.h); at
  // most about once a second.
  virtual void JobProgress(const queue::Job& job, const std::string& line) {
    (void)job;
    (void)line;
  }

  // A database session was opened; `after_failures` when earlier attempts
  // to open one failed.
  virtual void DatabaseConnected(bool after_failures) = 0;
  // Opening a session failed; the next attempt is in `retry_in_secs`.
  virtual void DatabaseUnavailable(const Status& error,
                                   double retry_in_secs) = 0;
  // A round trip of `step` (kClaimStep, kRecordStep, "reclaim", "release",
  // "listen", "heartbeat") failed; `connection_lost` when the session is
  // gone with it.
  virtual void DatabaseError(std::string_view step, const Status& error,
                             bool connection_lost) = 0;
  // Renewing the lease of the job in flight failed (not: the job is no
  // longer ours, which the handler learns from its checkpoint).
  virtual void LeaseRenewalFailed(const queue::Job& job,
                                  const Status& error) = 0;
  // Asking whether the job in flight is still ours failed (running_job.h).
  virtual void JobCheckFailed(const queue::Job& job, const Status& error) = 0;

  // The outcome of `job`, which ran for `duration_secs`, was recorded; or
  // discarded (!recorded.applied) because the job was no longer ours
  // (recorded.taken_over when another worker or an operator took it).
  virtual void JobRecorded(const queue::Job& job,
                           const queue::Recorded& recorded,
                           double duration_secs) = 0;
  // A job whose lease had expired was requeued or dead-lettered.
  virtual void JobReclaimed(const queue::Reclaimed& job) = 0;
  // The outcome of `job` could not be recorded before its lease ended; the
  // job is left to lease expiry.
  virtual void OutcomeNotRecorded(const queue::Job& job) = 0;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_REPORTER_H_
