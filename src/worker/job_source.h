// JobSource: where the worker loop gets its jobs and records their
// outcomes — awc.jobs over one database session — behind an interface so
// the loop can be tested against a fake. PgJobSource (pg_job_source.h) is
// the real one.
//
// Contract:
//  - At most one session at a time. Connect() opens and prepares one, and
//    refuses one that cannot write (db/writable.h); connected() is true
//    from its success until Disconnect(). When a call fails because the
//    session is gone, or is on a server that cannot write, broken() turns
//    true and the session stays open but unusable until the caller
//    disconnects: a handler may still hold db().
//  - Claim, Finish, RenewLease, StillHeld and Reclaim need connected() and
//    have the semantics of queue::JobQueue (docs/queue.md, "Queue
//    semantics"): Finish() records an outcome, fenced on the lease token,
//    and when `claim_next` claims the next ready job in the same
//    transaction; RenewLease() is false once the job is no longer ours,
//    and so is StillHeld(), which only reads.
//  - Heartbeat() writes the worker's row of awc.workers (fleet/workers.h)
//    and needs connected(); heartbeat.h decides when.
//  - WaitForWork() and Pause() are where the loop blocks. Both return early
//    once `stop()` holds (checked whenever the worker is woken, which a stop
//    signal does); WaitForWork() also returns when a notification of new
//    work arrives.
//  - Single-threaded, like the worker.
#ifndef AWC_WORKER_JOB_SOURCE_H_
#define AWC_WORKER_JOB_SOURCE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "fleet/workers.h"
#include "process/child_process.h"
#include "queue/job.h"

namespace awc::worker {

class JobSource {
 public:
  virtual ~JobSource() = default;

  // Opens and prepares a session (statements, LISTEN for new work).
  virtual Status Connect() = 0;
  virtual bool connected() const = 0;
  // True when connected() but the session was lost.
  virtual bool broken() const = 0;
  virtual void Disconnect() = 0;
  // The session, for handlers; valid while connected().
  virtual db::PgConn& db() = 0;

  // The kinds the next claims (Claim, and Finish's next) leave alone:
  // the background kinds while the worker holds no background place.
  virtual void ExcludeKinds(const std::vector<std::string>& kinds) = 0;
  virtual Result<std::optional<queue::Job>> Claim() = 0;
  virtual Result<queue::Finished> Finish(const queue::Job& job,
                                         const queue::Outcome& outcome,
                                         bool claim_next) = 0;
  virtual Result<bool> RenewLease(const queue::Job& job) = 0;
  // Whether `job` is still RUNNING under its lease token (one read, no
  // write): false once it was cancelled or taken back.
  virtual Result<bool> StillHeld(const queue::Job& job) = 0;
  // Fences the transactions handlers run on db() with `job`'s lease
  // (queue::JobQueue::FenceTransactions); nullptr lifts the fence.
  virtual void FenceTransactions(const queue::Job* job) = 0;
  // Requeues or dead-letters up to `limit` jobs whose lease ended or whose
  // holder has been silent for `silent_secs` (0: leases only).
  virtual Result<std::vector<queue::Reclaimed>> Reclaim(
      int limit, int64_t silent_secs) = 0;
  // Requeues or dead-letters the job of a worker that died running it, if
  // it is still RUNNING under `lease_token` (queue::JobQueue).
  virtual Result<std::optional<queue::Reclaimed>> ReleaseOrphan(
      int64_t job_id, int64_t lease_token, const std::string& error) = 0;

  // What one heartbeat says.
  struct Beat {
    fleet::BeatState state = fleet::BeatState::kIdle;
    int64_t job_id = 0;  // the job in flight while busy, else 0
    std::string job_kind;
    std::string progress;  // the job's (JSON, obs/progress.h), or ""
    bool prune = false;    // also remove the rows of workers long gone
  };
  // Writes this worker's row of awc.workers.
  virtual Status Heartbeat(const Beat& beat) = 0;

  // Returns at once when notifications of new work arrived since the last
  // call (while a job ran, say); otherwise once one arrives, `seconds`
  // pass or `stop()` holds. Consumes the notifications it saw; an error
  // means reading them failed.
  virtual Status WaitForWork(double seconds, const process::StopFn& stop) = 0;
  // Waits `seconds` (a backoff), or less once `*stop()` holds; a null
  // `stop` makes the wait uninterruptible.
  virtual void Pause(double seconds, const process::StopFn* stop) = 0;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_JOB_SOURCE_H_
