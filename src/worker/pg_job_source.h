// PgJobSource: the JobSource of a worker process — one libpq session
// driving queue::JobQueue, whose statements (queue/queue_sql.h) are the only
// SQL run on awc.jobs, and the worker's event loop for the waits.
//
// Contract, besides JobSource's:
//  - The session's application_name and the jobs' locked_by are the worker
//    id; the session LISTENs on awc_jobs, which an INSERT trigger notifies
//    (unless `pool_mode` is kTransaction: then the poll interval alone
//    finds new jobs).
//  - Heartbeat() writes the row of `me` (fleet/workers.h).
//  - Waits run `loop` (libev) with a timer and, in WaitForWork(), a watcher
//    on the session's socket; the stop signal wakes the loop
//    (process/child_process.h).
#ifndef AWC_WORKER_PG_JOB_SOURCE_H_
#define AWC_WORKER_PG_JOB_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "db/pg.h"
#include "queue/job_queue.h"
#include "worker/job_source.h"

struct ev_loop;

namespace awc::worker {

class PgJobSource : public JobSource {
 public:
  // `conninfo` is DATABASE_URL; `me.worker_id` is AWC_WORKER_ID-<n>.
  PgJobSource(struct ev_loop* loop, std::string conninfo,
              fleet::WorkerIdentity me, int64_t lease_secs,
              db::PoolMode pool_mode = db::PoolMode::kSession);
  ~PgJobSource() override;
  PgJobSource(const PgJobSource&) = delete;
  PgJobSource& operator=(const PgJobSource&) = delete;

  Status Connect() override;
  bool connected() const override { return conn_ != nullptr; }
  bool broken() const override { return conn_ && conn_->IsBroken(); }
  void Disconnect() override;
  db::PgConn& db() override { return *conn_; }

  void ExcludeKinds(const std::vector<std::string>& kinds) override;
  Result<std::optional<queue::Job>> Claim() override;
  Result<queue::Finished> Finish(const queue::Job& job,
                                 const queue::Outcome& outcome,
                                 bool claim_next) override;
  Result<bool> RenewLease(const queue::Job& job) override;
  Result<bool> StillHeld(const queue::Job& job) override;
  void FenceTransactions(const queue::Job* job) override;
  Result<std::vector<queue::Reclaimed>> Reclaim(int limit,
                                                int64_t silent_secs) override;
  Result<std::optional<queue::Reclaimed>> ReleaseOrphan(
      int64_t job_id, int64_t lease_token, const std::string& error) override;
  Status Heartbeat(const Beat& beat) override;

  Status WaitForWork(double seconds, const process::StopFn& stop) override;
  void Pause(double seconds, const process::StopFn* stop) override;

 private:
  // Runs the loop for up to `seconds`; returns early when `watch_socket`
  // and the session has input, or once `*stop()` holds.
  void Wait(double seconds, bool watch_socket, const process::StopFn* stop);

  struct ev_loop* loop_;
  std::string conninfo_;
  fleet::WorkerIdentity me_;
  int64_t lease_secs_;
  db::PoolMode pool_mode_;
  // The retry jitter, seeded once for the process's life (job_queue.h).
  queue::Xorshift32 rng_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
  std::vector<std::string> excluded_;  // kept across sessions
};

}  // namespace awc::worker

#endif  // AWC_WORKER_PG_JOB_SOURCE_H_
