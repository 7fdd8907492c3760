// JobQueue: one worker's view of awc.jobs (claim, record, renew, reclaim).
//
// Contract (docs/queue.md, "Queue semantics"):
//  - Claim() takes the oldest ready PENDING job with FOR UPDATE SKIP LOCKED
//    and commits the claim (RUNNING, attempts + 1, a fresh fencing token,
//    locked_until = now + lease) before returning it.
//  - Finish() records conditionally on state RUNNING and the token; when it
//    matches nothing the outcome is discarded and the row's current state
//    returned with applied = false (and taken_over when the row's token is
//    no longer this claim's).
//  - Claim and Finish each take one round trip (a pipeline) and one
//    commit, made without waiting for its WAL flush: a crash of the server
//    may undo the latest of them, which only makes their jobs run again
//    (docs/queue.md, "Durability of the queue's commits"). Handlers'
//    own transactions keep synchronous commits, and each flushes every
//    earlier claim and record with it.
//  - Retry delays come from backoff.h with this worker's xorshift32, which
//    the worker seeds once and keeps across its sessions: a JobQueue is
//    made per session, and a reconnect must not replay the jitter.
//  - Claims start at this session's ClaimCursor (queue/claim_cursor.h),
//    which notifications on awc_jobs move back; TakeNotifications() hands
//    them to it, and the claim takes those that arrived meanwhile itself.
//    A new JobQueue (a new session) starts with a full pass. Reclaim()
//    looks back only as far as its last sweep, with a full sweep on the
//    same FullPassClock terms (docs/queue.md, "The claim cursor").
//  - Every statement is prepared once, by Prepare(), on this connection
//    (behind a transaction pooler: run unnamed, db/pg.h). The pipeline's
//    one Sync keeps kQueueTransaction in the transaction it is meant for, also
//    there: a pooler hands the server connection on only after it.
#ifndef AWC_QUEUE_JOB_QUEUE_H_
#define AWC_QUEUE_JOB_QUEUE_H_

#include <optional>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/status.h"
#include "db/pg.h"
#include "queue/backoff.h"
#include "queue/claim_cursor.h"
#include "queue/job.h"

namespace awc::queue {

class JobQueue {
 public:
  // `worker_id` is this process's id (AWC_WORKER_ID-<n>): locked_by.
  // `rng` is the worker's jitter (Xorshift32::FromWorkerId), kept by the
  // caller for as long as the JobQueue.
  // `env` is the clock of the cursor's full passes.
  JobQueue(db::PgConn* conn, std::string worker_id, int64_t lease_secs,
           Xorshift32* rng, Env* env = Env::Default());

  // Prepares the statements and LISTENs for new jobs (both as the
  // connection's pool mode allows: db/pg.h).
  Status Prepare();

  Result<std::optional<Job>> Claim();
  // The kinds the next claims leave alone (none at first): the background
  // kinds while the worker has no background place. A change of the set
  // moves the cursor back to the start, for the jobs of a kind let in
  // again may lie behind it.
  void ExcludeKinds(const std::vector<std::string>& kinds);
  // Reads the notifications that arrived on the connection and moves the
  // claim cursor back as they say; returns how many there were.
  Result<int> TakeNotifications();
  // Where the next claim starts.
  const ClaimCursor& cursor() const { return cursor_; }
  // Whether the claims keep concurrency limits (docs/queue.md,
  // "Concurrency limits"): every full pass of the claim keeps them and
  // learns whether there are any for the claims until the next. A limit
  // set with awcctl rewinds every cursor, so the next claim is a full pass.
  bool keeps_limits() const { return keeps_limits_; }

  // Records `outcome` and, when `claim_next`, claims the next ready job in
  // the same transaction (one commit and one round trip per job).
  Result<Finished> Finish(const Job& job, const Outcome& outcome,
                          bool claim_next);
  // Extends the lease; false when the job is no longer ours.
  Result<bool> RenewLease(const Job& job);
  // Whether the job is still RUNNING under its lease token, by one read
  // that writes nothing (kJobHeld): false once it was cancelled or taken
  // back.
  Result<bool> StillHeld(const Job& job);
  // Fences every transaction on the connection (db::InTransaction) with
  // `job`'s lease (kFenceJob), so that a handler that went on after its
  // job was taken away commits nothing; nullptr lifts the fence.
  void FenceTransactions(const Job* job);

  // Requeues or dead-letters up to `limit` RUNNING jobs whose lease ended
  // or, when `silent_secs` > 0, whose holder has written no heartbeat for
  // that long (kReclaim).
  Result<std::vector<Reclaimed>> Reclaim(int limit, int64_t silent_secs);
  // Requeues or dead-letters job `id` of a worker that died running it,
  // if it is still RUNNING under `lease_token`; nullopt when it moved on.
  Result<std::optional<Reclaimed>> ReleaseOrphan(int64_t id,
                                                 int64_t lease_token,
                                                 const std::string& error);

 private:
  // The delay the k-th retry waits before it is claimable again.
  double NextRetryDelay(int retry) { return BackoffDelaySecs(retry, *rng_); }

  // The fenced statement recording `outcome` (queue_sql.h).
  db::PgConn::Prepared RecordStatement(const Job& job, const Outcome& outcome);
  // Records `*outcome` of `*job` when `job` is set, claims the next job
  // when `claim`: one pipeline, one transaction. `retried`: this claim is
  // the one made again at once after a kind was let in.
  Result<Finished> Run(const Job* job, const Outcome* outcome, bool claim,
                       bool retried = false);

  db::PgConn* conn_;
  std::string worker_id_;
  std::string lease_secs_;
  Xorshift32* rng_;
  Env* env_;
  ClaimCursor cursor_;
  std::vector<std::string> excluded_;
  std::string excluded_param_ = "{}";  // excluded_ as a text[] literal
  bool keeps_limits_ = false;
  // The kinds at a limit as the last claim found them (a text[] literal).
  std::string at_limit_ = "{}";
  // The lease sweep: when it looks back to the start, and else the
  // monotonic time since which it has left no ended lease behind.
  FullPassClock sweep_clock_;
  double swept_since_ = 0;
};

}  // namespace awc::queue

#endif  // AWC_QUEUE_JOB_QUEUE_H_
