// Every SQL statement of the workers on awc.jobs, and the queue's counts,
// in one place; the operator's (awcctl jobs and dead letters) are in
// admin_sql.h. (The scheduler's planners, which enqueue, and its prune,
// which deletes old jobs, are in scheduler/scheduler_sql.h.)
//
// The worker-side statements are prepared once per connection (JobQueue);
// recording statements are conditional on state = 'RUNNING' and the fencing
// token, so a worker whose job was cancelled or reclaimed changes nothing.
#ifndef AWC_QUEUE_QUEUE_SQL_H_
#define AWC_QUEUE_QUEUE_SQL_H_

#include <string>

namespace awc::queue::sql {

// The settings of the queue's own transaction (the claim and the
// recording statements, run in one pipeline after this statement), for
// that transaction only:
//  - it commits asynchronously: a commit lost in a crash of the server
//    only makes the job run again (docs/queue.md, "Durability of the
//    queue's commits");
//  - its prepared statements run their generic plans. The plans do not
//    depend on the values (tests/queue/queue_sql_plan_test.cc checks the
//    generic ones), and the plan cache would otherwise keep planning the
//    claim afresh for every job, a fifth of a worker session's CPU
//    (docs/queue.md, "The claim cursor").
// Its third column is the transaction's now() in microseconds, as the
// claim's last column gives a run_at: a claim that finds nothing has
// walked everything up to it (queue/claim_cursor.h).
inline constexpr const char* kQueueTransaction =
    "SELECT set_config('synchronous_commit', 'off', true), "
    "set_config('plan_cache_mode', 'force_generic_plan', true), "
    "awc.jobs_ready_micros(now())";

// The fencing token of a claim: the database clock in microseconds times
// 1024, plus 10 random bits. Two claims of one job are never within the
// same microsecond, so a job's tokens only grow; and unlike a sequence,
// whose advance is lost with an asynchronous commit, a token that a crash
// took away is not handed out again to the job's next claim.
#define AWC_QUEUE_NEW_TOKEN                                                \
  "floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1024 " \
  "+ floor(random() * 1024)::bigint"

// When a PENDING job became ready: its run_at, but never before the row
// was inserted (a producer's run_at far in the past must not read as years
// of lag); a PENDING job is ready once this time has come. Every reading of
// how long a job waited counts from it: the lag of kClaim and
// kReclaim, kJobStats (awcctl stats), kDepthSample (the metrics) and
// the console's overview (console/console_sql.h). jobs_pending_ready_idx
// (migrations/0008_console_backlog.sql) indexes it by kind for PENDING
// jobs, so the text must stay as it is here. Unqualified, and part of this
// header's interface: not #undef'd below.
#define AWC_QUEUE_READY_SINCE "greatest(run_at, created_at)"

// The claim's cursor (queue/claim_cursor.h) for the priority p.priority:
// the walk starts at the position ($3[p + 1] run_at in microseconds since
// the Unix epoch, NULL for -infinity; $4[p + 1] id, NULL for the first) of
// the priority's jobs. A row comparison, so that the index scan starts
// there rather than filtering from the index's start.
#define AWC_QUEUE_FROM_CURSOR                                               \
  "(run_at, id) >= (coalesce(timestamptz 'epoch' + "                        \
  "($3::bigint[])[p.priority + 1] * interval '1 microsecond', "             \
  "'-infinity'), coalesce(($4::bigint[])[p.priority + 1], "                 \
  "-9223372036854775808))"
// Of priority p.priority only. A range rather than "priority = p" keeps
// priority in the ORDER BY, which only the indexes that lead with it
// deliver: with "=", the planner may walk jobs_claim_idx (run_at, id),
// which older builds still use, filtering on priority.
#define AWC_QUEUE_OF_PRIORITY(alias) \
  alias "priority >= p.priority AND " alias "priority <= p.priority"

// $1 worker id, $2 lease seconds, $3 and $4 the cursor (bigint[], one
// element per priority), $5 kinds this claim leaves alone (text[]; '{}'
// for none: a worker with no background place, docs/queue.md, "Background
// work"; ClaimWithinLimits() adds the kinds at a concurrency limit). The
// columns after the token are when the job became ready
// (AWC_QUEUE_READY_SINCE), its run_at in microseconds ('' for -infinity),
// the cursor's next position, and its priority.
//
// The most urgent ready PENDING job (docs/queue.md, "Priorities"): of the
// priorities 0 to 9 in turn, the oldest ready job at or after the
// priority's cursor, by run_at and id, of a kind that is neither paused
// (awc.paused_kinds; docs/queue.md, "Pausing a kind") nor left alone; the
// walk ends at the first priority that has one. Of the two branches one
// runs, chosen by a one-time test of awc.paused_kinds and the kinds left
// alone:
//  - nothing paused or left alone (the usual case): of each priority, the
//    walk of jobs_priority_claim_idx from the cursor; a priority with no
//    ready job costs one descent of the index;
//  - some kind paused or left alone: of each priority, the kinds with
//    PENDING jobs, one probe each of jobs_pending_priority_kind_idx, and
//    of each kind neither paused nor left alone its oldest ready job, one
//    probe each (locked, skipping locked ones); the oldest of these is
//    claimed, the others' locks end with the transaction. Walking the
//    priority past a paused kind's backlog instead costs a row per job of
//    it (docs/queue.md, "Pausing a kind", for the figures). The kind range
//    "kind >= k AND kind <= k" keeps kind in the ORDER BY for the same
//    reason as AWC_QUEUE_OF_PRIORITY.
// A pause committed before the statement starts is seen by it.
inline constexpr const char* kClaim = R"sql(
UPDATE awc.jobs j
   SET state = 'RUNNING', attempts = j.attempts + 1, locked_by = $1,
       locked_until = now() + make_interval(secs => $2::float8),
       lease_token = )sql" AWC_QUEUE_NEW_TOKEN R"sql(, updated_at = now()
  FROM (SELECT a.id
          FROM generate_series(0, 9) p(priority)
         CROSS JOIN LATERAL (
                SELECT id FROM awc.jobs
                 WHERE )sql" AWC_QUEUE_OF_PRIORITY("") R"sql(
                   AND state = 'PENDING' AND run_at <= now()
                   AND )sql" AWC_QUEUE_FROM_CURSOR R"sql(
                 ORDER BY priority, run_at, id
                 LIMIT 1
                 FOR UPDATE SKIP LOCKED) a
         WHERE NOT EXISTS (SELECT 1 FROM awc.paused_kinds)
           AND cardinality($5::text[]) = 0
        UNION ALL
        SELECT b.id
          FROM generate_series(0, 9) p(priority)
         CROSS JOIN LATERAL (
                WITH RECURSIVE k(kind) AS (
                  (SELECT kind FROM awc.jobs
                    WHERE state = 'PENDING' AND )sql" AWC_QUEUE_OF_PRIORITY(
    "") R"sql(
                    ORDER BY priority, kind LIMIT 1)
                  UNION ALL
                  SELECT (SELECT n.kind FROM awc.jobs n
                           WHERE n.state = 'PENDING'
                             AND )sql" AWC_QUEUE_OF_PRIORITY("n.") R"sql(
                             AND n.kind > k.kind
                           ORDER BY n.priority, n.kind LIMIT 1)
                    FROM k WHERE k.kind IS NOT NULL)
                SELECT h.id FROM k
                 CROSS JOIN LATERAL (
                   SELECT id, run_at FROM awc.jobs
                    WHERE )sql" AWC_QUEUE_OF_PRIORITY("") R"sql(
                      AND kind >= k.kind AND kind <= k.kind
                      AND state = 'PENDING' AND run_at <= now()
                      AND )sql" AWC_QUEUE_FROM_CURSOR R"sql(
                    ORDER BY priority, kind, run_at, id
                    LIMIT 1
                    FOR UPDATE SKIP LOCKED) h
                 WHERE NOT EXISTS (SELECT 1 FROM awc.paused_kinds pk
                                    WHERE pk.kind = k.kind)
                   AND k.kind <> ALL ($5::text[])
                 ORDER BY h.run_at, h.id
                 LIMIT 1) b
         WHERE (EXISTS (SELECT 1 FROM awc.paused_kinds)
                OR cardinality($5::text[]) > 0)
         LIMIT 1) c
 WHERE j.id = c.id
RETURNING j.id, j.kind, j.payload::text, j.attempts, j.max_attempts,
          j.lease_token, extract(epoch FROM )sql" AWC_QUEUE_READY_SINCE R"sql(),
          awc.jobs_ready_micros(j.run_at), j.priority
)sql";

// The fence of every statement about a claimed job: job $1 is RUNNING
// under this claim's lease token $2. Once a cancel, a taking back or a new
// claim changed either, nothing this claim sends matches it.
#define AWC_QUEUE_HELD "id = $1 AND state = 'RUNNING' AND lease_token = $2"

// The recording statements below are UPDATEs fenced on state RUNNING and
// the lease token, returning (state, attempts, dead_reason); Fenced() wraps
// one so that it returns (applied, state, attempts, database now,
// dead_reason, taken over) in one round trip: the new state when it
// matched, else the row's current state and whether its lease token is
// no longer this claim's (taken back, which clears it, or claimed again:
// queue::Recorded::taken_over).
// $1 id, $2 lease token, $3 result JSON.
inline constexpr const char* kComplete = R"sql(
UPDATE awc.jobs
   SET state = 'COMPLETED', result = $3::jsonb, locked_until = NULL,
       finished_at = now(), updated_at = now()
 WHERE )sql" AWC_QUEUE_HELD R"sql(
RETURNING state, attempts, dead_reason
)sql";

// $1 id, $2 lease token, $3 backoff seconds, $4 error. A job whose
// attempts are spent is dead-lettered as attempts_exhausted.
inline constexpr const char* kRetry = R"sql(
UPDATE awc.jobs
   SET state = CASE WHEN attempts >= max_attempts THEN 'FAILED'
                    ELSE 'PENDING' END,
       run_at = CASE WHEN attempts >= max_attempts THEN run_at
                     ELSE now() + make_interval(secs => $3::float8) END,
       finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
       dead_reason = CASE WHEN attempts >= max_attempts
                          THEN 'attempts_exhausted' END,
       last_error = $4, locked_until = NULL, updated_at = now()
 WHERE )sql" AWC_QUEUE_HELD R"sql(
RETURNING state, attempts, dead_reason
)sql";

// $1 id, $2 lease token, $3 error, $4 dead reason (queue::DeadReasonName).
inline constexpr const char* kFail = R"sql(
UPDATE awc.jobs
   SET state = 'FAILED', last_error = $3, dead_reason = $4,
       locked_until = NULL, finished_at = now(), updated_at = now()
 WHERE )sql" AWC_QUEUE_HELD R"sql(
RETURNING state, attempts, dead_reason
)sql";

// Back to PENDING without spending the attempt. $1 id, $2 token, $3 seconds,
// $4 why (kept in last_error, which a completion does not clear).
inline constexpr const char* kDefer = R"sql(
UPDATE awc.jobs
   SET state = 'PENDING', attempts = attempts - 1,
       run_at = now() + make_interval(secs => $3::float8),
       last_error = $4, locked_until = NULL, updated_at = now()
 WHERE )sql" AWC_QUEUE_HELD R"sql(
RETURNING state, attempts, dead_reason
)sql";

inline std::string Fenced(const char* update) {
  return std::string("WITH rec AS (") + update +
         ")\n"
         "SELECT true, state, attempts, extract(epoch FROM now()), "
         "dead_reason, false FROM rec\n"
         "UNION ALL\n"
         "SELECT false, state, attempts, extract(epoch FROM now()), "
         "dead_reason, lease_token IS DISTINCT FROM $2\n"
         "  FROM awc.jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM rec)";
}

// kClaim while some kind has a concurrency limit: it also leaves alone the
// kinds that kLimitsOut (kind_settings_sql.h) put in the transaction's
// awc.limits_out. A statement of its own, so that claims without limits
// do not read the setting.
inline std::string ClaimWithinLimits() {
  const std::string plain = "$5::text[]";
  const std::string within =
      "($5::text[] || coalesce(nullif(current_setting('awc.limits_out', "
      "true), ''), '{}')::text[])";
  std::string sql = kClaim;
  for (size_t at = sql.find(plain); at != std::string::npos;
       at = sql.find(plain, at + within.size())) {
    sql.replace(at, plain.size(), within);
  }
  return sql;
}

// Whether job $1 is still RUNNING under lease token $2: a row while it
// is. What a running handler's checkpoints read between renewals, at most
// once a second, so that a cancel reaches the handler within about a
// second rather than at its next renewal (docs/queue.md, "Cancelling a
// running job"). A plain read by primary key: it writes nothing and never
// waits for a lock.
inline constexpr const char* kJobHeld = R"sql(
SELECT 1 FROM awc.jobs
 WHERE )sql" AWC_QUEUE_HELD R"sql(
)sql";

// $1 id, $2 lease token, $3 lease seconds. Returns a row while still held.
inline constexpr const char* kRenewLease = R"sql(
UPDATE awc.jobs
   SET locked_until = now() + make_interval(secs => $3::float8),
       updated_at = now()
 WHERE )sql" AWC_QUEUE_HELD R"sql(
RETURNING 1
)sql";

// The SET of taking a RUNNING job back from its holder (kReclaim,
// kReleaseOrphan): requeued, or dead-lettered as `reason` once its attempts
// are spent (a job that kills its worker must not loop), with `error` (an
// SQL expression) its last_error, and its lease token cleared: the taker
// reports the job, so a late outcome of the old holder, which finds the
// token gone, is not counted again (Fenced(), queue::Recorded); and what
// both return: (id, kind, state, attempts, lag seconds counted as kClaim's,
// dead reason).
#define AWC_QUEUE_TAKE_BACK(reason, error)                                \
  "state = CASE WHEN j.attempts >= j.max_attempts THEN 'FAILED' "         \
  "ELSE 'PENDING' END, "                                                  \
  "finished_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END, " \
  "dead_reason = CASE WHEN j.attempts >= j.max_attempts THEN '" reason    \
  "' END, last_error = " error                                            \
  ", locked_until = NULL, lease_token = NULL, "                           \
  "updated_at = now()"
#define AWC_QUEUE_TAKEN_BACK                                                \
  "RETURNING j.id, j.kind, j.state, j.attempts, extract(epoch FROM now()) " \
  "- extract(epoch FROM " AWC_QUEUE_READY_SINCE "), j.dead_reason"

// RUNNING jobs taken back from their holder before the holder is done:
// those whose lease ended, and, when $2 > 0, those whose holder went
// silent: its worker id has written no heartbeat to awc.workers for $2
// seconds (every row of that id, on any host) and the job was neither
// claimed nor renewed in that time either. A holder with no row at all is
// left to its lease. Rows that a handler's fenced transaction holds
// (kFenceJob) are skipped, so a holder in the middle of a long statement
// keeps its job (docs/queue.md, "Silent holders"). Dead-lettered as
// attempts_exhausted once their attempts are spent. $1 batch limit (of
// each of the two), $2 silence in seconds (0: leases only), $3 how far back
// the sweep of ended leases looks, in seconds: leases that ended earlier
// were taken back by this worker's earlier sweeps (queue/claim_cursor.h;
// docs/queue.md, "The claim cursor"). Each of the two is a range of
// jobs_lease_idx, whose entries for every finished job a pinned horizon
// keeps: the first is bounded by $3, and the second runs only when some
// worker is silent (a one-time test of awc.workers). The last column is
// true when the lease had ended (else the holder was silent).
inline constexpr const char* kReclaim = R"sql(
WITH expired AS (
  SELECT id FROM awc.jobs
   WHERE state = 'RUNNING' AND locked_until < now()
     AND locked_until >= now() - make_interval(secs => $3::float8)
   ORDER BY locked_until
   LIMIT $1
   FOR UPDATE SKIP LOCKED),
silent_workers AS MATERIALIZED (
  SELECT worker_id FROM awc.workers
   WHERE $2::bigint > 0
   GROUP BY worker_id
  HAVING max(heartbeat_at) < now() - make_interval(secs => $2::bigint)),
silent AS (
  SELECT id FROM awc.jobs
   WHERE state = 'RUNNING' AND locked_until >= now()
     AND EXISTS (SELECT 1 FROM silent_workers)
     AND updated_at < now() - make_interval(secs => $2::bigint)
     AND locked_by IN (SELECT worker_id FROM silent_workers)
   ORDER BY locked_until
   LIMIT $1
   FOR UPDATE SKIP LOCKED)
UPDATE awc.jobs j
   SET )sql" AWC_QUEUE_TAKE_BACK(
    "attempts_exhausted",
    "CASE WHEN c.lease_ended THEN 'lease expired (held by ' || "
    "coalesce(j.locked_by, '?') || ')' ELSE 'its worker went silent (' || "
    "j.locked_by || ': no heartbeat for ' || $2::bigint || ' s)' END") R"sql(
  FROM (SELECT id, true AS lease_ended FROM expired
        UNION ALL
        SELECT id, false FROM silent) c
 WHERE j.id = c.id
)sql" AWC_QUEUE_TAKEN_BACK R"sql(, c.lease_ended
)sql";

// The job of a worker that died running it (the master saw it die, and the
// worker status table kept the job and its token: obs/worker_status.h),
// taken back at once instead of at its lease's end, as worker_crashed once
// its attempts are spent. Fenced on state RUNNING and the token: a job that
// moved on is left alone (no row). $1 id, $2 lease token, $3 the error.
inline constexpr const char* kReleaseOrphan = R"sql(
UPDATE awc.jobs j
   SET )sql" AWC_QUEUE_TAKE_BACK("worker_crashed", "$3") R"sql(
 WHERE )sql" AWC_QUEUE_HELD R"sql(
)sql" AWC_QUEUE_TAKEN_BACK;

// The fence of a handler's transactions (PgConn::SetFence): $1 job id, $2
// lease token. A row only while the job is RUNNING under this claim; the
// row lock (FOR SHARE) lasts until the transaction ends, so meanwhile the
// job cannot be reclaimed (kReclaim skips locked rows), cancelled
// or recorded by anyone else.
inline constexpr const char* kFenceJob = R"sql(
SELECT 1 FROM awc.jobs
 WHERE )sql" AWC_QUEUE_HELD R"sql(
   FOR SHARE
)sql";

inline constexpr const char* kListen = "LISTEN awc_jobs";

// Jobs by kind: (kind, pending, running, completed, failed, cancelled,
// seconds the oldest ready PENDING job has waited or NULL), by kind; a job
// waits from AWC_QUEUE_READY_SINCE.
inline constexpr const char* kJobStats = R"sql(
SELECT kind,
       count(*) FILTER (WHERE state = 'PENDING'),
       count(*) FILTER (WHERE state = 'RUNNING'),
       count(*) FILTER (WHERE state = 'COMPLETED'),
       count(*) FILTER (WHERE state = 'FAILED'),
       count(*) FILTER (WHERE state = 'CANCELLED'),
       extract(epoch FROM now() - min()sql" AWC_QUEUE_READY_SINCE R"sql()
               FILTER (WHERE state = 'PENDING'
                         AND )sql" AWC_QUEUE_READY_SINCE R"sql( <= now()))
  FROM awc.jobs
 GROUP BY kind
 ORDER BY kind
)sql";

// The depth of the queue, sampled for the metrics: (kind, state, count,
// seconds the oldest ready job has waited, from AWC_QUEUE_READY_SINCE, or
// NULL; priority, PENDING rows only, which are by kind and priority) for
// the PENDING, RUNNING and FAILED jobs only, each state read
// through its own partial index (a RUNNING job always has its
// locked_until, which jobs_lease_idx covers), so the sample stays cheap
// however many finished jobs the table keeps. Ages are taken from the
// clock after the scan: the transaction's start, and even the statement's,
// may come before a job that committed in time for the statement's
// snapshot, whose age would then read short.
inline constexpr const char* kDepthSample = R"sql(
SELECT kind, 'PENDING', count(*),
       extract(epoch FROM clock_timestamp()
                          - min()sql" AWC_QUEUE_READY_SINCE R"sql()
               FILTER (WHERE )sql" AWC_QUEUE_READY_SINCE R"sql( <= now())),
       priority
  FROM awc.jobs WHERE state = 'PENDING' GROUP BY kind, priority
UNION ALL
SELECT kind, 'RUNNING', count(*), NULL, NULL
  FROM awc.jobs WHERE state = 'RUNNING' AND locked_until IS NOT NULL
 GROUP BY kind
UNION ALL
SELECT kind, 'FAILED', count(*), NULL, NULL
  FROM awc.jobs WHERE state = 'FAILED' GROUP BY kind
)sql";

// Dead letters by reason: (reason or '' when unrecorded, count), by reason.
inline constexpr const char* kDeadLetterStats = R"sql(
SELECT coalesce(dead_reason, ''), count(*)
  FROM awc.jobs WHERE state = 'FAILED'
 GROUP BY 1
 ORDER BY 1
)sql";

#undef AWC_QUEUE_FROM_CURSOR
#undef AWC_QUEUE_OF_PRIORITY
#undef AWC_QUEUE_HELD
#undef AWC_QUEUE_NEW_TOKEN
#undef AWC_QUEUE_TAKE_BACK
#undef AWC_QUEUE_TAKEN_BACK

}  // namespace awc::queue::sql

#endif  // AWC_QUEUE_QUEUE_SQL_H_
