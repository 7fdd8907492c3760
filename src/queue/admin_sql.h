// The operator's statements on awc.jobs (awcctl jobs, dead letters, the
// console's job pages), unprepared: enqueue, list, show with the error
// history, cancel and retry. The workers' statements are in queue_sql.h.
#ifndef AWC_QUEUE_ADMIN_SQL_H_
#define AWC_QUEUE_ADMIN_SQL_H_

#include "queue/queue_sql.h"

namespace awc::queue::sql {

// A timestamp column as ISO 8601 UTC text, "" for NULL.
#define AWC_QUEUE_TS(col) \
  "coalesce(to_char(" col \
  " AT TIME ZONE 'UTC', " \
  "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '')"

// $1 kind, $2 payload, $3 max attempts (NULL = the column default), $4
// delay seconds, $5 priority (NULL = the kind's, which the table's trigger
// gives: migrations/0023_kind_settings.sql).
inline constexpr const char* kEnqueue = R"sql(
INSERT INTO awc.jobs (kind, payload, max_attempts, run_at, priority)
VALUES ($1, $2::jsonb, coalesce($3::integer, 5),
        now() + make_interval(secs => $4::float8), $5::smallint)
RETURNING id
)sql";

// The columns of a job in a listing: (id, kind, state, attempts,
// max_attempts, run_at, updated_at, finished_at, locked_by or '', dead
// reason or '', last_error or '').
#define AWC_QUEUE_JOB_ROW \
  "id, kind, state, attempts, max_attempts, " AWC_QUEUE_TS("run_at") ", " \
  AWC_QUEUE_TS("updated_at") ", " AWC_QUEUE_TS("finished_at") ", "        \
  "coalesce(locked_by, ''), coalesce(dead_reason, ''), "                  \
  "coalesce(last_error, '')"

// $1 state or '', $2 kind or '', $3 limit. Newest first.
inline constexpr const char* kListJobs = "SELECT " AWC_QUEUE_JOB_ROW R"sql(
  FROM awc.jobs
 WHERE ($1 = '' OR state = $1) AND ($2 = '' OR kind = $2)
 ORDER BY id DESC
 LIMIT $3
)sql";

// $1 id. The listing's columns, then (payload, result or '', lease token or
// NULL, locked_until, created_at, priority).
inline constexpr const char* kShowJob = "SELECT " AWC_QUEUE_JOB_ROW R"sql(,
       payload::text, coalesce(result::text, ''), lease_token,
       )sql" AWC_QUEUE_TS("locked_until") ", " AWC_QUEUE_TS("created_at") R"sql(,
       priority
  FROM awc.jobs WHERE id = $1
)sql";

// $1 id. Its error history (migration 0022), oldest first: (attempt, at
// as ISO 8601, worker or '', state, dead_reason or '', error).
inline constexpr const char* kJobErrors = R"sql(
SELECT attempt, )sql" AWC_QUEUE_TS("at") R"sql(, coalesce(worker, ''), state,
       coalesce(dead_reason, ''), error
  FROM awc.job_errors WHERE job_id = $1
 ORDER BY id
)sql";

// $1 id. When the job was inserted, in the database's own text form (to be
// given back as a timestamptz without losing a microsecond).
inline constexpr const char* kJobCreatedAt = R"sql(
SELECT created_at FROM awc.jobs WHERE id = $1
)sql";

// What became of each of the ids $1 (bigint[]) that a statement changed in
// the CTE `changed` (RETURNING id): (id, changed, state before or '' when
// there is no such job), by id.
#define AWC_QUEUE_EACH_ID                                  \
  "SELECT i.id, c.id IS NOT NULL, coalesce(j.state, '')\n" \
  "  FROM unnest($1::bigint[]) AS i(id)\n"                 \
  "  LEFT JOIN changed c ON c.id = i.id\n"                 \
  "  LEFT JOIN awc.jobs j ON j.id = i.id\n"                \
  " ORDER BY i.id"

// $1 ids (bigint[]). PENDING and RUNNING jobs become CANCELLED, as a
// producer's cancel does (a running handler learns it at its next
// checkpoint, within about a second: docs/queue.md, "Cancelling a running
// job").
inline constexpr const char* kCancelJobs = R"sql(
WITH changed AS (
  UPDATE awc.jobs
     SET state = 'CANCELLED', locked_until = NULL, finished_at = now(),
         updated_at = now()
   WHERE id = ANY($1::bigint[]) AND state IN ('PENDING', 'RUNNING')
  RETURNING id)
)sql" AWC_QUEUE_EACH_ID;

// Back to a fresh PENDING job, ready now: the lease, the attempts, the
// verdict and the dead reason are cleared; last_error stays until the next
// failure overwrites it.
#define AWC_QUEUE_REQUEUE                                               \
  "state = 'PENDING', attempts = 0, run_at = now(), locked_by = NULL, " \
  "locked_until = NULL, lease_token = NULL, result = NULL, "            \
  "dead_reason = NULL, finished_at = NULL, updated_at = now()"

// $1 ids (bigint[]). FAILED and CANCELLED jobs go back to PENDING.
inline constexpr const char* kRetryJobs = R"sql(
WITH changed AS (
  UPDATE awc.jobs SET )sql" AWC_QUEUE_REQUEUE R"sql(
   WHERE id = ANY($1::bigint[]) AND state IN ('FAILED', 'CANCELLED')
  RETURNING id)
)sql" AWC_QUEUE_EACH_ID;

// The dead letters a dlq verb selects: $1 ids (bigint[]) or NULL for any,
// $2 kind or '', $3 dead reason or '', $4 finished more than this many
// seconds ago, or NULL.
#define AWC_QUEUE_DLQ_MATCH                                               \
  "state = 'FAILED' AND ($1::bigint[] IS NULL OR id = ANY($1::bigint[]))" \
  " AND ($2 = '' OR kind = $2) AND ($3 = '' OR dead_reason = $3)"         \
  " AND ($4::float8 IS NULL"                                              \
  "      OR finished_at < now() - make_interval(secs => $4::float8))"

// $1..$4 the selection, $5 limit. The listing's columns, newest first.
inline constexpr const char* kListDeadLetters =
    "SELECT " AWC_QUEUE_JOB_ROW " FROM awc.jobs WHERE " AWC_QUEUE_DLQ_MATCH
    " ORDER BY id DESC LIMIT $5";

// $1..$4 the selection. How many dead letters it holds.
inline constexpr const char* kCountDeadLetters =
    "SELECT count(*) FROM awc.jobs WHERE " AWC_QUEUE_DLQ_MATCH;

// The count of the rows a statement changed in the CTE `changed`, and
// their ids when $1 named them (else '{}').
#define AWC_QUEUE_CHANGED                                \
  "SELECT count(*), coalesce(array_agg(id ORDER BY id) " \
  "FILTER (WHERE $1::bigint[] IS NOT NULL), '{}') FROM changed"

// $1..$4 the selection. Retries the dead letters it holds.
inline constexpr const char* kRetryDeadLetters =
    "WITH changed AS (UPDATE awc.jobs SET " AWC_QUEUE_REQUEUE
    " WHERE " AWC_QUEUE_DLQ_MATCH " RETURNING id) " AWC_QUEUE_CHANGED;

// $1..$4 the selection. Deletes the dead letters it holds.
inline constexpr const char* kPurgeDeadLetters =
    "WITH changed AS (DELETE FROM awc.jobs WHERE " AWC_QUEUE_DLQ_MATCH
    " RETURNING id) " AWC_QUEUE_CHANGED;

}  // namespace awc::queue::sql

#undef AWC_QUEUE_CHANGED
#undef AWC_QUEUE_DLQ_MATCH
#undef AWC_QUEUE_REQUEUE
#undef AWC_QUEUE_EACH_ID
#undef AWC_QUEUE_JOB_ROW
#undef AWC_QUEUE_TS

#endif  // AWC_QUEUE_ADMIN_SQL_H_
