// The statements on what operators set per kind: awc.paused_kinds
// (migrations/0013_paused_kinds.sql), pausing and resuming a kind, and
// awc.kind_settings (migrations/0023_job_priority.sql), its priority; and
// the kinds as awcctl kinds list, stats and schedules list show them. The
// claim's own test of awc.paused_kinds is part of kClaim (queue_sql.h).
#ifndef AWC_QUEUE_KIND_SETTINGS_SQL_H_
#define AWC_QUEUE_KIND_SETTINGS_SQL_H_

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

// $1 kind, $2 its priority, $3 by whom ('' for the database role). The
// kind's priority before (4 when it had no row) and how many of its
// PENDING jobs moved from that one to $2. The moved jobs' update notifies
// awc_jobs (migration 0019), so that claim cursors go back to them.
inline constexpr const char* kSetKindPriority = R"sql(
WITH was AS (
  SELECT coalesce((SELECT priority FROM awc.kind_settings WHERE kind = $1),
                  4) AS priority),
set AS (
  INSERT INTO awc.kind_settings (kind, priority, updated_by)
  VALUES ($1, $2::smallint, coalesce(nullif($3, ''), session_user))
  ON CONFLICT (kind) DO UPDATE
     SET priority = excluded.priority, updated_at = now(),
         updated_by = excluded.updated_by
  RETURNING 1),
moved AS (
  UPDATE awc.jobs j SET priority = $2::smallint
    FROM was
   WHERE j.state = 'PENDING' AND j.kind = $1 AND j.priority = was.priority
     AND was.priority <> $2::smallint
  RETURNING 1)
SELECT was.priority, (SELECT count(*) FROM moved), (SELECT count(*) FROM set)
  FROM was
)sql";

// $1 the built-in kinds (text[]). The kinds awcctl kinds list shows: built
// in, paused, given a priority, or with PENDING or RUNNING jobs; (kind,
// built in, paused, paused_at or '', paused_by or '', reason or '',
// pending, running, priority), by kind. Reads the PENDING and RUNNING jobs only, through their partial
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
  UNION SELECT kind FROM awc.kind_settings
  UNION SELECT kind FROM live)
SELECT n.kind, n.kind = ANY($1::text[]), p.kind IS NOT NULL,
       coalesce(to_char(p.paused_at AT TIME ZONE 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
       coalesce(p.paused_by, ''), coalesce(p.reason, ''),
       coalesce(l.pending, 0), coalesce(l.running, 0),
       coalesce(s.priority, 4)
  FROM names n
  LEFT JOIN awc.paused_kinds p ON p.kind = n.kind
  LEFT JOIN awc.kind_settings s ON s.kind = n.kind
  LEFT JOIN live l ON l.kind = n.kind
 ORDER BY n.kind
)sql";

#undef AWC_PAUSED_KIND_ROW

}  // namespace awc::queue::sql

#endif  // AWC_QUEUE_KIND_SETTINGS_SQL_H_
