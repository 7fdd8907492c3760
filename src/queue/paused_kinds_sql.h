// The statements on awc.paused_kinds (migrations/0013_paused_kinds.sql):
// pausing and resuming a kind, and the kinds as awcctl kinds list, stats
// and schedules list show them. The claim's own test of the table is part
// of kClaim (queue_sql.h).
#ifndef AWC_QUEUE_PAUSED_KINDS_SQL_H_
#define AWC_QUEUE_PAUSED_KINDS_SQL_H_

namespace awc::queue::sql {

// A paused kind's columns: (kind, paused_at as ISO 8601 UTC, paused_by or
// '', reason or '').
#define AWC_PAUSED_KIND_ROW                                      \
  "kind, to_char(paused_at AT TIME ZONE 'UTC', "                 \
  "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), coalesce(paused_by, ''), " \
  "coalesce(reason, '')"

// $1 kind, $2 by whom ('' for the database role), $3 reason or ''. No row
// when the kind was paused already.
inline constexpr const char* kPauseKind = R"sql(
INSERT INTO awc.paused_kinds (kind, paused_by, reason)
VALUES ($1, coalesce(nullif($2, ''), session_user), nullif($3, ''))
ON CONFLICT (kind) DO NOTHING
RETURNING )sql" AWC_PAUSED_KIND_ROW;

// $1 kind. A row when it was paused. The table's trigger notifies
// awc_jobs, waking idle workers (migrations/0013_paused_kinds.sql).
inline constexpr const char* kResumeKind =
    "DELETE FROM awc.paused_kinds WHERE kind = $1 "
    "RETURNING " AWC_PAUSED_KIND_ROW;

// $1 kind. Its row, when paused.
inline constexpr const char* kPausedKind =
    "SELECT " AWC_PAUSED_KIND_ROW " FROM awc.paused_kinds WHERE kind = $1";

// Every paused kind, by kind.
inline constexpr const char* kPausedKinds =
    "SELECT " AWC_PAUSED_KIND_ROW " FROM awc.paused_kinds ORDER BY kind";

// $1 kind. Whether awc.jobs holds a job of it, in any state: one probe of
// the partial index of each state (the table has no index on kind alone).
inline constexpr const char* kKindHasJobs = R"sql(
SELECT EXISTS (SELECT 1 FROM awc.jobs WHERE state = 'PENDING' AND kind = $1)
    OR EXISTS (SELECT 1 FROM awc.jobs
                WHERE locked_until IS NOT NULL AND kind = $1)
    OR EXISTS (SELECT 1 FROM awc.jobs WHERE state = 'FAILED' AND kind = $1)
    OR EXISTS (SELECT 1 FROM awc.jobs
                WHERE state IN ('COMPLETED', 'CANCELLED') AND kind = $1)
)sql";

// $1 the built-in kinds (text[]). The kinds awcctl kinds list shows: built
// in, paused, or with PENDING or RUNNING jobs; (kind, built in, paused,
// paused_at or '', paused_by or '', reason or '', pending, running), by
// kind. Reads the PENDING and RUNNING jobs only, through their partial
// indexes (a RUNNING job always has its locked_until).
inline constexpr const char* kListKinds = R"sql(
WITH live AS (
  SELECT kind, count(*) FILTER (WHERE state = 'PENDING') AS pending,
         count(*) FILTER (WHERE state = 'RUNNING') AS running
    FROM (SELECT kind, state FROM awc.jobs WHERE state = 'PENDING'
          UNION ALL
          SELECT kind, state FROM awc.jobs
           WHERE locked_until IS NOT NULL AND state = 'RUNNING') s
   GROUP BY kind),
names AS (
  SELECT unnest($1::text[]) AS kind
  UNION SELECT kind FROM awc.paused_kinds
  UNION SELECT kind FROM live)
SELECT n.kind, n.kind = ANY($1::text[]), p.kind IS NOT NULL,
       coalesce(to_char(p.paused_at AT TIME ZONE 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
       coalesce(p.paused_by, ''), coalesce(p.reason, ''),
       coalesce(l.pending, 0), coalesce(l.running, 0)
  FROM names n
  LEFT JOIN awc.paused_kinds p ON p.kind = n.kind
  LEFT JOIN live l ON l.kind = n.kind
 ORDER BY n.kind
)sql";

#undef AWC_PAUSED_KIND_ROW

}  // namespace awc::queue::sql

#endif  // AWC_QUEUE_PAUSED_KINDS_SQL_H_
