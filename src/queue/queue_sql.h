// Every SQL statement of the workers and `awcctl jobs` on awc.jobs, in one
// place. (The scheduler's planners, which enqueue, and its prune, which
// deletes old jobs, are in scheduler/scheduler_sql.h.)
//
// The worker-side statements are prepared once per connection (JobQueue);
// recording statements are conditional on state = 'RUNNING' and the fencing
// token, so a worker whose job was cancelled or reclaimed changes nothing.
#ifndef AWC_QUEUE_QUEUE_SQL_H_
#define AWC_QUEUE_QUEUE_SQL_H_

#include <string>

namespace awc::queue::sql {

// $1 worker id, $2 lease seconds.
inline constexpr const char* kClaim = R"sql(
UPDATE awc.jobs j
   SET state = 'RUNNING', attempts = j.attempts + 1, locked_by = $1,
       locked_until = now() + make_interval(secs => $2::float8),
       lease_token = nextval('awc.job_lease_token_seq'), updated_at = now()
  FROM (SELECT id FROM awc.jobs
         WHERE state = 'PENDING' AND run_at <= now()
         ORDER BY run_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED) c
 WHERE j.id = c.id
RETURNING j.id, j.kind, j.payload::text, j.attempts, j.max_attempts,
          j.lease_token, extract(epoch FROM j.run_at)
)sql";

// The recording statements below are UPDATEs fenced on state RUNNING and
// the lease token, returning (state, attempts); Fenced() wraps one so that
// it returns (applied, state, attempts, database now) in one round trip:
// the new state when it matched, else the row's current state.
// $1 id, $2 lease token, $3 result JSON.
inline constexpr const char* kComplete = R"sql(
UPDATE awc.jobs
   SET state = 'COMPLETED', result = $3::jsonb, locked_until = NULL,
       finished_at = now(), updated_at = now()
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
RETURNING state, attempts
)sql";

// $1 id, $2 lease token, $3 backoff seconds, $4 error.
inline constexpr const char* kRetry = R"sql(
UPDATE awc.jobs
   SET state = CASE WHEN attempts >= max_attempts THEN 'FAILED'
                    ELSE 'PENDING' END,
       run_at = CASE WHEN attempts >= max_attempts THEN run_at
                     ELSE now() + make_interval(secs => $3::float8) END,
       finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
       last_error = $4, locked_until = NULL, updated_at = now()
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
RETURNING state, attempts
)sql";

// $1 id, $2 lease token, $3 error.
inline constexpr const char* kFail = R"sql(
UPDATE awc.jobs
   SET state = 'FAILED', last_error = $3, locked_until = NULL,
       finished_at = now(), updated_at = now()
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
RETURNING state, attempts
)sql";

// Back to PENDING without spending the attempt. $1 id, $2 token, $3 seconds.
inline constexpr const char* kDefer = R"sql(
UPDATE awc.jobs
   SET state = 'PENDING', attempts = attempts - 1,
       run_at = now() + make_interval(secs => $3::float8),
       locked_until = NULL, updated_at = now()
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
RETURNING state, attempts
)sql";

inline std::string Fenced(const char* update) {
  return std::string("WITH rec AS (") + update +
         ")\n"
         "SELECT true, state, attempts, extract(epoch FROM now()) FROM rec\n"
         "UNION ALL\n"
         "SELECT false, state, attempts, extract(epoch FROM now())\n"
         "  FROM awc.jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM rec)";
}

// $1 id, $2 lease token, $3 lease seconds. Returns a row while still held.
inline constexpr const char* kRenewLease = R"sql(
UPDATE awc.jobs
   SET locked_until = now() + make_interval(secs => $3::float8),
       updated_at = now()
 WHERE id = $1 AND state = 'RUNNING' AND lease_token = $2
RETURNING 1
)sql";

// RUNNING jobs whose lease ended: requeued, or dead-lettered when their
// attempts are spent (a job that kills its worker must not loop forever).
// $1 batch limit. Returns (id, kind, state, attempts, lag seconds).
inline constexpr const char* kReclaimExpired = R"sql(
UPDATE awc.jobs j
   SET state = CASE WHEN j.attempts >= j.max_attempts THEN 'FAILED'
                    ELSE 'PENDING' END,
       finished_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
       last_error = 'lease expired (held by ' || coalesce(j.locked_by, '?') || ')',
       locked_until = NULL, updated_at = now()
  FROM (SELECT id FROM awc.jobs
         WHERE state = 'RUNNING' AND locked_until < now()
         ORDER BY locked_until
         LIMIT $1
         FOR UPDATE SKIP LOCKED) c
 WHERE j.id = c.id
RETURNING j.id, j.kind, j.state, j.attempts,
          extract(epoch FROM now()) - extract(epoch FROM j.run_at)
)sql";

inline constexpr const char* kListen = "LISTEN awc_jobs";

// Operator side (awcctl). $1 kind, $2 payload, $3 max attempts (NULL = the
// column default), $4 delay seconds.
inline constexpr const char* kEnqueue = R"sql(
INSERT INTO awc.jobs (kind, payload, max_attempts, run_at)
VALUES ($1, $2::jsonb, coalesce($3::integer, 5),
        now() + make_interval(secs => $4::float8))
RETURNING id
)sql";

// $1 state or '', $2 kind or '', $3 limit. Newest first.
inline constexpr const char* kListJobs = R"sql(
SELECT id, kind, state, attempts, max_attempts,
       to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       coalesce(locked_by, ''), coalesce(last_error, '')
  FROM awc.jobs
 WHERE ($1 = '' OR state = $1) AND ($2 = '' OR kind = $2)
 ORDER BY id DESC
 LIMIT $3
)sql";

}  // namespace awc::queue::sql

#endif  // AWC_QUEUE_QUEUE_SQL_H_
