// WorkerProcessReporter: the Reporter of a worker process. Its state goes to
// its slot of the shared status table (which the master reads for /readyz, the
// sd_notify STATUS= line and the jobs-processed count) and to the process
// title; its jobs to the shared metrics and, one event per job, to stderr.
//
// Contract (docs/observability.md, "Observability"):
//  - Titles: "awc-worker: worker <n> connecting|idle|stopping", and
//    "awc-worker: worker <n> job <id> <kind>" while busy, the kind reduced
//    to 48 printable characters.
//  - Each job recorded, discarded or reclaimed gives the event of
//    job_event.h (with the job's kind) and counts once in
//    awc_background_jobs_total{kind,outcome} and
//    awc_background_job_lag_seconds{kind}, except a discarded outcome of a
//    job taken over by someone else (queue::Recorded::taken_over), whom it
//    is left to count; recorded and discarded ones also count in
//    awc_background_job_duration_seconds{kind} and the slot's
//    jobs-processed count. Reclaimed ones carry reason "lease_expired"
//    (counted in awc_lease_reclaims_total), "holder_silent" (its worker's
//    heartbeat went stale: awc_silent_worker_reclaims_total) or
//    "worker_died" (an orphan, counted in awc_crash_requeues_total);
//    discarded ones discarded: true, dead-lettered ones their dead_reason
//    (queue::DeadReasonName). The `kind` label is a closed set: a kind the
//    registry knows, or "unknown" for any other, so producers inventing
//    kinds cannot use up the label budget of the metrics.
//  - A transient error of the claim or record step counts in
//    awc_api_errors_total{component="worker"}; every other failed database
//    round trip (of those steps when not transient, reclaims, hand-backs,
//    waits for work, heartbeats, lease renewals and job checks) in
//    awc_worker_other_database_errors_total. Failures to open a session
//    count in neither. The slot's db_ok follows whether the session works,
//    and its db_read_only whether the last session, or attempt at one, was
//    found unable to write (db/writable.h) until a session that can is open.
#ifndef AWC_WORKER_WORKER_PROCESS_REPORTER_H_
#define AWC_WORKER_WORKER_PROCESS_REPORTER_H_

#include <string_view>

#include "handlers/registry.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "worker/reporter.h"

namespace awc::worker {

class WorkerProcessReporter : public Reporter {
 public:
  // `slot` is 0-based; no pointer is null. `registry` names the kinds that
  // are labels of their own.
  WorkerProcessReporter(obs::Metrics* metrics, obs::WorkerStatusTable* status,
                        int slot, const handlers::Registry* registry);

  void StateChanged(WorkerState state, const queue::Job* job) override;
  void JobProgress(const queue::Job& job, const std::string& line) override;
  void DatabaseConnected(bool after_failures) override;
  void DatabaseUnavailable(const Status& error, double retry_in_secs) override;
  void DatabaseError(std::string_view step, const Status& error,
                     bool connection_lost) override;
  void LeaseRenewalFailed(const queue::Job& job, const Status& error) override;
  void JobCheckFailed(const queue::Job& job, const Status& error) override;
  void JobRecorded(const queue::Job& job, const queue::Recorded& recorded,
                   double duration_secs) override;
  void JobReclaimed(const queue::Reclaimed& job) override;
  void OutcomeNotRecorded(const queue::Job& job) override;

 private:
  void SetDbOk(bool ok);
  void SetReadOnly(bool read_only);
  // `kind` if the registry knows it, else "unknown".
  std::string_view KindLabel(const std::string& kind) const;

  obs::Metrics* metrics_;
  obs::WorkerStatusTable* status_;
  int slot_;
  const handlers::Registry* registry_;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_PROCESS_REPORTER_H_
