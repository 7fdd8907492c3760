// The statements on what operators set per kind: awc.paused_kinds
// (migrations/0013_paused_kinds.sql), pausing and resuming a kind, and
// awc.kind_settings (migrations/0023_kind_settings.sql), its priority; and
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

// $1 kind, $2 whether to set the host limit, $3 the host limit (NULL for
// none), $4 and $5 the same for the fleet limit, $6 by whom ('' for the
// database role). The kind's limits as they are now (NULL for none). A
// new row gets the kind's priority as the trigger would (4 when none). The
// notification on awc_jobs with no position rewinds every claim cursor, so
// that each worker's next claim is a full pass, which learns that limits
// are kept (kLimitsKnown).
inline constexpr const char* kSetKindLimits = R"sql(
WITH set AS (
  INSERT INTO awc.kind_settings (kind, host_limit, fleet_limit, updated_by)
  VALUES ($1, CASE WHEN $2::bool THEN $3::integer END,
          CASE WHEN $4::bool THEN $5::integer END,
          coalesce(nullif($6, ''), session_user))
  ON CONFLICT (kind) DO UPDATE
     SET host_limit = CASE WHEN $2::bool THEN excluded.host_limit
                           ELSE awc.kind_settings.host_limit END,
         fleet_limit = CASE WHEN $4::bool THEN excluded.fleet_limit
                            ELSE awc.kind_settings.fleet_limit END,
         updated_at = now(), updated_by = excluded.updated_by
  RETURNING host_limit, fleet_limit)
SELECT host_limit, fleet_limit, pg_notify('awc_jobs', '') IS NULL FROM set
)sql";

// $1 the built-in kinds (text[]). The kinds awcctl kinds list shows: built
// in, paused, given a priority, or with PENDING or RUNNING jobs; (kind,
// built in, paused, paused_at or '', paused_by or '', reason or '',
// pending, running, priority, host limit, fleet limit (NULL for none)), by
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
  UNION SELECT kind FROM awc.kind_settings
  UNION SELECT kind FROM live)
SELECT n.kind, n.kind = ANY($1::text[]), p.kind IS NOT NULL,
       coalesce(to_char(p.paused_at AT TIME ZONE 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
       coalesce(p.paused_by, ''), coalesce(p.reason, ''),
       coalesce(l.pending, 0), coalesce(l.running, 0),
       coalesce(s.priority, 4), s.host_limit, s.fleet_limit
  FROM names n
  LEFT JOIN awc.paused_kinds p ON p.kind = n.kind
  LEFT JOIN awc.kind_settings s ON s.kind = n.kind
  LEFT JOIN live l ON l.kind = n.kind
 ORDER BY n.kind
)sql";

// The claim's concurrency limits (docs/queue.md, "Concurrency limits").
// While some kind has a limit, the worker's claim pipeline runs
// kLimitsLock and kLimitsOut before kClaim, in its transaction; kClaim
// leaves alone the kinds kLimitsOut names (ClaimWithinLimits()). How the
// three keep a limit across hosts:
//  - kLimitsLock takes, in kind order, the transaction-scoped advisory
//    lock of each limited kind this claim might take: one with a ready
//    job, neither paused nor left alone by the worker, and under its
//    limits as the statement sees the table. Two claims that might take a
//    job of one such kind run one after the other from here to their
//    commit.
//  - kLimitsOut, a later statement and so a later snapshot, sees every
//    claim committed by whoever held a lock before; it names the limited
//    kinds this claim may not take: those at a limit, and those it did
//    not lock (a job of one may have become ready since).
// A kind at its limit is not locked, so claims do not queue on a kind
// that is full. Counts are of RUNNING rows, ended leases included until
// they are taken back.
#define AWC_KIND_LIMITED(s) \
  "(" s ".host_limit IS NOT NULL OR " s ".fleet_limit IS NOT NULL)"
// The kind's RUNNING jobs, read through jobs_lease_idx (a RUNNING job
// always has its locked_until), which holds no other state: as many
// entries as jobs run, whatever the backlog. $1 the worker id (a host's
// limit is per AWC_WORKER_ID).
#define AWC_KIND_RUNNING(s)                                          \
  "(SELECT count(*) FROM awc.jobs r WHERE r.locked_until IS NOT NULL " \
  "AND r.state = 'RUNNING' AND r.kind = " s ".kind"
#define AWC_KIND_UNDER_LIMITS(s)                                        \
  "((" s ".fleet_limit IS NULL OR " AWC_KIND_RUNNING(s) ") < " s        \
  ".fleet_limit) AND (" s ".host_limit IS NULL OR " AWC_KIND_RUNNING(s) \
  " AND r.locked_by = $1) < " s ".host_limit))"

// Whether some kind has a limit: probed with every full pass of the claim.
inline constexpr const char* kLimitsKnown =
    "SELECT EXISTS (SELECT 1 FROM awc.kind_settings s WHERE " AWC_KIND_LIMITED(
        "s") ")";

// $1 worker id, $2 the kinds the claim leaves alone (text[]). Sets
// awc.limits_locked, for this transaction, to the kinds it locked.
inline constexpr const char* kLimitsLock = R"sql(
WITH candidates AS MATERIALIZED (
  SELECT s.kind FROM awc.kind_settings s
   WHERE )sql" AWC_KIND_LIMITED("s") R"sql(
     AND s.kind <> ALL ($2::text[])
     AND NOT EXISTS (SELECT 1 FROM awc.paused_kinds p WHERE p.kind = s.kind)
     AND (SELECT 1 FROM awc.jobs j
           WHERE j.state = 'PENDING' AND j.kind = s.kind
             AND j.run_at <= now()
           LIMIT 1) IS NOT NULL
     AND )sql" AWC_KIND_UNDER_LIMITS("s") R"sql(
   ORDER BY s.kind),
locked AS MATERIALIZED (
  SELECT kind, pg_advisory_xact_lock(1096, hashtext(kind)) FROM candidates)
SELECT set_config('awc.limits_locked',
                  coalesce((SELECT array_agg(kind ORDER BY kind)
                              FROM locked)::text, '{}'), true)
)sql";

// $1 worker id. Sets awc.limits_out, for this transaction, to the limited
// kinds this claim may not take, by kind, and returns it ('{}' for none).
inline constexpr const char* kLimitsOut = R"sql(
SELECT set_config('awc.limits_out', coalesce((
  SELECT array_agg(s.kind ORDER BY s.kind) FROM awc.kind_settings s
   WHERE )sql" AWC_KIND_LIMITED("s") R"sql(
     AND (s.kind <> ALL (coalesce(nullif(
            current_setting('awc.limits_locked', true), ''), '{}')::text[])
          OR NOT )sql" AWC_KIND_UNDER_LIMITS("s") R"sql())::text, '{}'), true)
)sql";

#undef AWC_KIND_LIMITED
#undef AWC_KIND_RUNNING
#undef AWC_KIND_UNDER_LIMITS
#undef AWC_PAUSED_KIND_ROW

}  // namespace awc::queue::sql

#endif  // AWC_QUEUE_KIND_SETTINGS_SQL_H_
