// RunningJob: the job in flight, as its handler sees it (JobContext) and as
// the worker tracks its lease.
//
// Contract:
//  - The lease is renewed (JobSource::RenewLease) once a third of it has
//    passed since the claim or the last renewal: at the handler's
//    Checkpoint() calls, and from a timer on the worker's event loop while
//    Run() is on, so a handler that waits on the loop (S3 transfers) keeps
//    its lease without checkpoints of its own.
//  - Between renewals, at most once a second, the same places ask whether
//    the job is still ours (JobSource::StillHeld, one read that writes
//    nothing), so that a cancel reaches the handler within about a second
//    of its commit, not at the next renewal (docs/queue.md, "Cancelling a
//    running job").
//  - Checkpoint() is cheap until a renewal or a check is due (a clock
//    read), so handlers may call it often: the closure walk calls it after
//    every MiB of an object it reads, which keeps the lease through one
//    large object read from file://, where the loop and its timer do not
//    run.
//  - Checkpoint() returns kFailedPrecondition once a renewal or a check
//    says the job is no longer ours (cancelled, or taken back after its
//    lease ran out), and from then on without asking again; the handler
//    should stop, and recording its outcome will be discarded.
//  - A renewal or check that fails (the session lost, say) is reported and
//    is not an error for the handler: the session is left as it is, since
//    the handler holds it; the worker replaces it after the handler
//    returns. The next attempt comes a second later at the earliest; no
//    check is made on a session known to be lost.
//  - The worker's heartbeat is written when due at the same places (the
//    timer fires at least every `beat_min_secs`), so a long job shows.
#ifndef AWC_WORKER_RUNNING_JOB_H_
#define AWC_WORKER_RUNNING_JOB_H_

#include <ev.h>

#include "handlers/job_context.h"
#include "queue/job.h"
#include "worker/heartbeat.h"
#include "worker/worker_deps.h"

namespace awc::worker {

class RunningJob : public handlers::JobContext {
 public:
  // The lease of `job` counts from now (its claim has just committed).
  // `heartbeat` is the worker's; it outlives the RunningJob.
  RunningJob(const queue::Job& job, const WorkerDeps& deps,
             Heartbeat* heartbeat);
  RunningJob(const RunningJob&) = delete;
  RunningJob& operator=(const RunningJob&) = delete;

  // Runs the handler of the job's kind (Registry::Dispatch, which never
  // throws) with the renewal timer on.
  queue::Outcome Run();

  // When the lease ends at the latest, on the deps' monotonic clock.
  double LeaseEnd() const;

  const queue::Job& job() const override { return job_; }
  db::PgConn& db() override { return deps_.source->db(); }
  const handlers::HandlerOptions& options() const override {
    return *deps_.handler_options;
  }
  struct ev_loop* loop() override {
    return deps_.loop;
  }
  store::ObjectStore& store() override { return *deps_.store; }
  store::ObjectStore* repair_store() override { return deps_.repair_store; }
  obs::Metrics& metrics() override { return *deps_.metrics; }
  Status Checkpoint() override;
  Status Pace(uint64_t bytes, uint64_t objects) override;
  void Progress(const obs::JobProgress& progress) override;

 private:
  static void OnRenewTimer(struct ev_loop* loop, ev_timer* w, int revents);
  double LeaseSecs() const {
    return static_cast<double>(deps_.options.lease_secs);
  }

  // Renews the lease when a third of it has passed, or else asks whether
  // the job is still ours when a check is due.
  Status StillOurs();
  static Status LostStatus();

  const queue::Job& job_;
  const WorkerDeps& deps_;
  Heartbeat* heartbeat_;
  double started_;             // monotonic, when the handler began
  double last_progress_ = -1;  // when the title last showed progress
  double last_renew_;          // the claim or the last renewal that worked
  double last_asked_;          // the last renewal or check, worked or not
  bool renew_failed_ = false;  // the last renewal tried failed
  bool lost_ = false;  // a renewal or check found the job no longer ours
};

}  // namespace awc::worker

#endif  // AWC_WORKER_RUNNING_JOB_H_
