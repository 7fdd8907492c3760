// Every SQL statement of the scheduler but the leader lease's
// (leader_lease_sql.h): the schedules, the built-in planners and pruning,
// and the operator's statements (`awcctl schedules`). See
// docs/scheduler.md, "Scheduler".
//
// Values travel only as $n parameters. Times the scheduler computes with
// are microseconds since the epoch (bigint), as the database keeps them.
// The planners insert into awc.jobs with a dedupe_key and ON CONFLICT DO
// NOTHING on jobs_dedupe_idx, so a subject has at most one live job of a
// kind however often it is planned; each one returns (due, enqueued).
#ifndef AWC_SCHEDULER_SCHEDULER_SQL_H_
#define AWC_SCHEDULER_SCHEDULER_SQL_H_

namespace awc::scheduler::sql {

// --- Schedules: the scheduler's statements ---------------------------------

// $1 names, $2 specs, $3 kinds ('' for none) as text[]. Creates the
// built-in schedules that do not exist yet, due at once; existing rows
// (an operator's spec, a pause) are left as they are. A row that exists is
// not even offered to the INSERT: its unique check would wait for another
// session's uncommitted change of that row, and the scheduler could not
// start while one is held open.
inline constexpr const char* kEnsureBuiltins = R"sql(
INSERT INTO awc.schedules (name, spec, kind, builtin)
SELECT n, s, nullif(k, ''), true
  FROM unnest($1::text[], $2::text[], $3::text[]) AS u(n, s, k)
 WHERE NOT EXISTS (SELECT 1 FROM awc.schedules x WHERE x.name = u.n)
    ON CONFLICT (name) DO NOTHING
)sql";

// A next_run_at the scheduler can compute with: from 1970 to 9999 (UTC),
// the range of the CHECK schedules_next_run_at_in_range
// (migrations/0011_schedule_limits.sql). An infinity, or a time whose
// microseconds overflow a bigint, is not; such a row (on a database that
// lost the CHECK) counts as due, and its firing is an error run that moves
// it onto its spec's grid (firing.h), so it never stops the others.
#define AWC_NEXT_RUN_OK                                       \
  "(next_run_at >= timestamptz '1970-01-01 00:00:00+00' AND " \
  "next_run_at < timestamptz '10000-01-01 00:00:00+00')"
// next_run_at as ISO 8601 text in UTC, whatever it is ('-infinity').
#define AWC_NEXT_RUN_TEXT                                                  \
  "CASE WHEN isfinite(next_run_at) THEN to_char(next_run_at AT TIME ZONE " \
  "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || CASE WHEN next_run_at < "   \
  "timestamptz '0001-01-01 00:00:00+00' THEN ' BC' ELSE '' END "           \
  "ELSE next_run_at::text END"

// $1 limit, $2 names left out (text[]: those the loop passed over).
// (name, builtin, whether the scheduler can compute with its next_run_at)
// of the due schedules, the longest due first (one it cannot compute with
// counts as due).
inline constexpr const char* kDueSchedules =
    R"sql(
SELECT name, builtin, )sql" AWC_NEXT_RUN_OK R"sql( FROM awc.schedules
 WHERE NOT paused AND (next_run_at <= now() OR NOT )sql" AWC_NEXT_RUN_OK R"sql()
   AND name <> ALL ($2::text[])
 ORDER BY next_run_at, name
 LIMIT $1
)sql";

// $1 names left out (text[]). Seconds until the next schedule is due
// (negative when one is; 0 for one the scheduler cannot compute with), or
// NULL when none is unpaused.
inline constexpr const char* kSecondsToNextDue =
    R"sql(
SELECT extract(epoch FROM min(CASE WHEN )sql" AWC_NEXT_RUN_OK R"sql(
                                   THEN next_run_at ELSE now() END)
                          - now())::float8
  FROM awc.schedules WHERE NOT paused AND name <> ALL ($1::text[])
)sql";

// $1 name. Locks the schedule while it is still due and unpaused; returns
// (spec, kind or '', payload, builtin, next_run_at in µs or NULL when the
// scheduler cannot compute with it, now in µs, next_run_at as text). A row
// another session holds locked is skipped (no row), so that session's open
// transaction stalls no other schedule; the loop tries it again shortly
// (scheduler.h).
inline constexpr const char* kLockDue =
    R"sql(
SELECT spec, coalesce(kind, ''), payload::text, builtin,
       CASE WHEN )sql" AWC_NEXT_RUN_OK R"sql(
            THEN (extract(epoch FROM next_run_at) * 1000000)::bigint END,
       (extract(epoch FROM now()) * 1000000)::bigint,
       )sql" AWC_NEXT_RUN_TEXT R"sql(
  FROM awc.schedules
 WHERE name = $1 AND NOT paused
   AND (next_run_at <= now() OR NOT )sql" AWC_NEXT_RUN_OK R"sql()
   FOR UPDATE SKIP LOCKED
)sql";

// $1 name, $2 next run in µs, $3 result (JSON object). Under kLockDue's
// row lock.
inline constexpr const char* kRecordRun = R"sql(
UPDATE awc.schedules
   SET next_run_at = timestamptz 'epoch' + $2::bigint * interval '1 microsecond',
       last_run_at = now(), last_result = $3::jsonb, runs = runs + 1
 WHERE name = $1
)sql";

// Schedules whose next run lies ahead, paused or not: (name, spec,
// next_run_at in µs, now in µs). The leader cuts those more than a period
// ahead (schedule_clamp.h); a next_run_at it cannot compute with counts as
// due instead (kDueSchedules).
inline constexpr const char* kSchedulesAhead =
    R"sql(
SELECT name, spec, (extract(epoch FROM next_run_at) * 1000000)::bigint,
       (extract(epoch FROM now()) * 1000000)::bigint
  FROM awc.schedules
 WHERE next_run_at > now() AND )sql" AWC_NEXT_RUN_OK R"sql(
)sql";

// $1 name, $2 spec, $3 bound in µs, $4 next run in µs. Moves the
// schedule's next run to $4 while its spec is still $2 and its next run
// still lies beyond $3 (an operator's change since it was read wins). A
// row another session holds locked is passed over, as kLockDue does, and
// looked at again next time. A row when it moved it.
inline constexpr const char* kClampNextRun =
    R"sql(
UPDATE awc.schedules
   SET next_run_at = timestamptz 'epoch' + $4::bigint * interval '1 microsecond'
 WHERE name = (
   SELECT name FROM awc.schedules
    WHERE name = $1 AND spec = $2
      AND next_run_at > timestamptz 'epoch' + $3::bigint * interval '1 microsecond'
      AND )sql" AWC_NEXT_RUN_OK R"sql(
      FOR UPDATE SKIP LOCKED)
RETURNING 1
)sql";

inline constexpr const char* kListenSchedules = "LISTEN awc_schedules";

// The scheduler session's lock_timeout (db::PgConn::SetSessionSetting:
// for the session, or behind a transaction pooler for each transaction).
inline constexpr const char* kLockTimeout = "lock_timeout";

// --- The planners (one statement each) --------------------------------------
//
// Each planner spells the kind it enqueues as a literal, the name of that
// kind's handler (handlers/<kind>.h); scheduler/planners.cc checks at
// compile time that the two agree.

// The conflict target of every planner's INSERT: jobs_dedupe_idx.
#define AWC_DEDUPE_CONFLICT                                      \
  "ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL " \
  "AND state IN ('PENDING', 'RUNNING') DO NOTHING"

// The tail of a snapshot planner: one `kind` job per snapshot id of `due`,
// deduplicated per snapshot; returns (due, enqueued).
#define AWC_ENQUEUE_DUE_SNAPSHOTS_WITH(kind, payload)    \
  "ins AS (\n"                                           \
  "  INSERT INTO awc.jobs (kind, payload, dedupe_key)\n" \
  "  SELECT '" kind "', " payload                        \
  ",\n"                                                  \
  "         'snapshot:' || id\n"                         \
  "    FROM due\n" AWC_DEDUPE_CONFLICT                   \
  "\n  RETURNING 1)\n"                                   \
  "SELECT (SELECT count(*) FROM due), (SELECT count(*) FROM ins)\n"
#define AWC_ENQUEUE_DUE_SNAPSHOTS(kind)                               \
  AWC_ENQUEUE_DUE_SNAPSHOTS_WITH(kind,                                \
                                 "jsonb_build_object('snapshot_id', " \
                                 "id)")

// gc: one gc_sweep per tenant that has objects.
inline constexpr const char* kPlanGc =
    R"sql(
WITH due AS (
  SELECT t.id FROM awc.tenants t
   WHERE EXISTS (SELECT 1 FROM awc.objects o WHERE o.tenant_id = t.id)),
ins AS (
  INSERT INTO awc.jobs (kind, payload, dedupe_key)
  SELECT 'gc_sweep', jsonb_build_object('tenant_id', id), 'tenant:' || id
    FROM due
)sql" AWC_DEDUPE_CONFLICT R"sql(
  RETURNING 1)
SELECT (SELECT count(*) FROM due), (SELECT count(*) FROM ins)
)sql";

// reconcile: one store_reconcile per tenant that has objects.
inline constexpr const char* kPlanReconcile =
    R"sql(
WITH due AS (
  SELECT t.id FROM awc.tenants t
   WHERE EXISTS (SELECT 1 FROM awc.objects o WHERE o.tenant_id = t.id)),
ins AS (
  INSERT INTO awc.jobs (kind, payload, dedupe_key)
  SELECT 'store_reconcile', jsonb_build_object('tenant_id', id),
         'tenant:' || id
    FROM due
)sql" AWC_DEDUPE_CONFLICT R"sql(
  RETURNING 1)
SELECT (SELECT count(*) FROM due), (SELECT count(*) FROM ins)
)sql";

// expire: $1 grace seconds (AWC_RETENTION_GRACE_SECS), $2 limit. One
// workspace_expire per workspace whose next step is due, as the handler
// decides it (catalog_sql.h, kLockWorkspace): ACTIVE past expires_at;
// EXPIRING past its grace, or renewed.
inline constexpr const char* kPlanExpire =
    R"sql(
WITH due AS (
  (SELECT id FROM awc.workspaces
    WHERE state = 'ACTIVE' AND expires_at <= now()
    ORDER BY expires_at LIMIT $2)
  UNION ALL
  (SELECT id FROM awc.workspaces
    WHERE state = 'EXPIRING'
      AND (expiring_since <= now() - make_interval(secs => $1::float8)
           OR expires_at IS NULL OR expires_at > now())
    ORDER BY expiring_since LIMIT $2)),
ins AS (
  INSERT INTO awc.jobs (kind, payload, dedupe_key)
  SELECT 'workspace_expire', jsonb_build_object('workspace_id', id),
         'workspace:' || id
    FROM due
)sql" AWC_DEDUPE_CONFLICT R"sql(
  RETURNING 1)
SELECT (SELECT count(*) FROM due), (SELECT count(*) FROM ins)
)sql";

// A workspace's retention policy as the snapshot_retain handler accepts it:
// an object with no keys but keep_last and keep_within_secs, at least one
// of them, each a positive JSON integer (a rule of 0, or none, would keep
// nothing: the handler takes it for a mistake and keeps everything).
// (CASE keeps the operators away from scalars.)
#define AWC_POLICY_INT_OK(key)                                     \
  "(NOT retention ? '" key "' OR (jsonb_typeof(retention -> '" key \
  "') = 'number' AND retention ->> '" key "' ~ '^[1-9][0-9]*$'))"
#define AWC_POLICY_VALID                                             \
  "(CASE WHEN jsonb_typeof(retention) = 'object' THEN "              \
  "retention - 'keep_last' - 'keep_within_secs' = '{}'::jsonb "      \
  "AND (retention ? 'keep_last' OR retention ? 'keep_within_secs') " \
  "AND " AWC_POLICY_INT_OK("keep_last") " AND " AWC_POLICY_INT_OK(   \
      "keep_within_secs") " ELSE false END)"

// retain: $1 limit. One snapshot_retain per READY snapshot the handler
// would release: every one of an EXPIRED workspace; otherwise, under a
// valid policy, the unpinned ones past the keep_last newest (by
// created_at, id) and at least keep_within_secs old. Per workspace, an
// index-only walk of snapshots_workspace_idx skips the keep_last newest;
// only the snapshots past them are read (for `pinned`).
inline constexpr const char* kPlanRetain =
    R"sql(
WITH pol AS (
  SELECT id, state = 'EXPIRED' AS expired,
         CASE WHEN state = 'EXPIRED' THEN 0
              WHEN )sql" AWC_POLICY_VALID R"sql(
              THEN least(coalesce((retention ->> 'keep_last')::numeric, 0),
                         9223372036854775807)::bigint
         END AS skip,
         CASE WHEN )sql" AWC_POLICY_VALID R"sql(
              THEN (retention ->> 'keep_within_secs')::numeric END AS within
    FROM awc.workspaces
   WHERE retention IS NOT NULL OR state = 'EXPIRED'),
ws AS (SELECT * FROM pol WHERE skip IS NOT NULL),
due AS (
  SELECT c.id FROM ws
   CROSS JOIN LATERAL (
     SELECT s.id, s.created_at FROM awc.snapshots s
      WHERE s.workspace_id = ws.id AND s.state = 'READY'
      ORDER BY s.created_at DESC, s.id DESC
     OFFSET ws.skip) c
   WHERE ws.expired
      OR ((ws.within IS NULL
           OR extract(epoch FROM now() - c.created_at) >= ws.within)
          AND NOT (SELECT p.pinned FROM awc.snapshots p WHERE p.id = c.id))
   LIMIT $1),
)sql" AWC_ENQUEUE_DUE_SNAPSHOTS("snapshot_retain");

// scrub: $1 the planning horizon in seconds (the coverage promise,
// AWC_SCRUB_INTERVAL_SECS, less the lead the scrubs get to run: planners.h),
// $2 limit (AWC_SCRUB_MAX_PER_RUN). READY snapshots last verified
// (scrubbed, else validated) before the horizon, oldest first; each job
// skips the objects verified within it (shared with a snapshot scrubbed or
// validated since), so a cycle reads each object once.
inline constexpr const char* kPlanScrub =
    R"sql(
WITH due AS (
  SELECT id FROM awc.snapshots
   WHERE state = 'READY'
     AND coalesce(scrubbed_at, validated_at, created_at)
         < now() - make_interval(secs => $1::float8)
   ORDER BY coalesce(scrubbed_at, validated_at, created_at), id
   LIMIT $2),
)sql" AWC_ENQUEUE_DUE_SNAPSHOTS_WITH(
        "snapshot_scrub",
        "jsonb_build_object('snapshot_id', id, 'reverify_after_secs', "
        "($1::float8)::bigint)");

// $1 the coverage promise in seconds (AWC_SCRUB_INTERVAL_SECS). The scrub
// coverage of the fleet, sampled by the scrub planner: the LIVE objects
// that snapshots reference, how many of them were verified within the
// promise, their bytes, how long the one verified longest ago (or never,
// since its upload) has waited, and how many hosts run workers now. A
// pass over the referenced inventory, once an hour.
inline constexpr const char* kScrubCoverage = R"sql(
SELECT count(*),
       count(*) FILTER (WHERE verified_at >= now() - make_interval(secs => $1::float8)),
       coalesce(sum(size), 0)::int8,
       coalesce(extract(epoch FROM now() - min(coalesce(verified_at, created_at))), 0)::float8,
       (SELECT count(DISTINCT host) FROM awc.workers
         WHERE state <> 'stopped'
           AND heartbeat_at > clock_timestamp() - interval '60 seconds')
  FROM awc.objects
 WHERE state = 'LIVE' AND refs > 0
)sql";

// validate: $1 minimum age in seconds, $2 limit. VALIDATING snapshots older
// than that with no PENDING or RUNNING validation job, whoever enqueued it
// (jobs_validate_live_idx): a producer's lost enqueue, a dead-lettered
// validation.
inline constexpr const char* kPlanValidate =
    R"sql(
WITH due AS (
  SELECT s.id FROM awc.snapshots s
   WHERE s.state = 'VALIDATING'
     AND s.created_at < now() - make_interval(secs => $1::float8)
     AND NOT EXISTS (
           SELECT 1 FROM awc.jobs j
            WHERE j.kind = 'snapshot_validate'
              AND j.state IN ('PENDING', 'RUNNING')
              AND j.payload -> 'snapshot_id' = to_jsonb(s.id))
   ORDER BY s.created_at, s.id
   LIMIT $2),
)sql" AWC_ENQUEUE_DUE_SNAPSHOTS("snapshot_validate");

// An operator schedule's firing: $1 kind, $2 payload, $3 dedupe key. A row
// (id) when the job was enqueued, none when one is still live.
inline constexpr const char* kEnqueueScheduled =
    R"sql(
INSERT INTO awc.jobs (kind, payload, dedupe_key)
VALUES ($1, $2::jsonb, $3)
)sql" AWC_DEDUPE_CONFLICT R"sql(
RETURNING id
)sql";

// --- prune: bounded batches, each in its own fenced transaction ------------
//
// Each batch picks its rows with its index into an array and deletes them
// by key (or by ctid), so the DELETE never scans the table to join them.

// $1 retention seconds, $2 batch. COMPLETED and CANCELLED jobs that
// finished before the retention (a producer's cancel leaves finished_at
// NULL: updated_at then), unless a worker's lease on one is still running
// (a job cancelled while it ran). Never a PENDING or RUNNING job.
inline constexpr const char* kPruneJobs = R"sql(
DELETE FROM awc.jobs
 WHERE id = ANY (ARRAY(
   SELECT id FROM awc.jobs
    WHERE state IN ('COMPLETED', 'CANCELLED')
      AND coalesce(finished_at, updated_at)
          < now() - make_interval(secs => $1::float8)
      AND (locked_until IS NULL OR locked_until < now())
    LIMIT $2
      FOR UPDATE SKIP LOCKED))
)sql";

// $1 retention seconds, $2 batch. Dead letters (FAILED) older than their
// retention.
inline constexpr const char* kPruneDeadLetters = R"sql(
DELETE FROM awc.jobs
 WHERE id = ANY (ARRAY(
   SELECT id FROM awc.jobs
    WHERE state = 'FAILED'
      AND coalesce(finished_at, updated_at)
          < now() - make_interval(secs => $1::float8)
      AND (locked_until IS NULL OR locked_until < now())
    LIMIT $2
      FOR UPDATE SKIP LOCKED))
)sql";

// $1 retention seconds, $2 batch. Audit events older than the retention.
inline constexpr const char* kPruneAudit = R"sql(
DELETE FROM awc.audit_events
 WHERE id = ANY (ARRAY(
   SELECT id FROM awc.audit_events
    WHERE created_at < now() - make_interval(secs => $1::float8)
    ORDER BY created_at
    LIMIT $2))
)sql";

// $1 retention seconds, $2 batch. The candidate rows of GC epochs that
// finished (COMPLETED, ABORTED, REFUSED) before the retention; the epochs
// and their counts stay. Epochs are looked at from the oldest one that
// still has candidates on, each one's candidates through its index.
inline constexpr const char* kPruneGcCandidates = R"sql(
DELETE FROM awc.gc_candidates
 WHERE ctid = ANY (ARRAY(
   SELECT c.ctid
     FROM (SELECT id FROM awc.gc_epochs
            WHERE id >= (SELECT min(epoch_id) FROM awc.gc_candidates)
              AND state IN ('COMPLETED', 'ABORTED', 'REFUSED')
              AND finished_at < now() - make_interval(secs => $1::float8)
            ORDER BY id) e
    CROSS JOIN LATERAL (
      SELECT ctid FROM awc.gc_candidates WHERE epoch_id = e.id LIMIT $2) c
    LIMIT $2))
)sql";

#undef AWC_ENQUEUE_DUE_SNAPSHOTS
#undef AWC_DEDUPE_CONFLICT
#undef AWC_POLICY_INT_OK
#undef AWC_POLICY_VALID

// --- The operator's statements (awcctl schedules; unprepared) ----------------

// $1 names, $2 specs, $3 kinds of the built-in schedules, as for
// kEnsureBuiltins. Every schedule, built-in ones first: (name, spec, kind
// or '', payload, builtin, paused, next run ISO or '', last run ISO or '',
// last result or '', runs, next_run_at as text when the scheduler cannot
// compute with it or '', next_run_at in µs when it can or NULL, now in
// µs). Only reads: a built-in schedule no scheduler has created yet is
// listed with its default spec, never run, and no next run ('': it will be
// due at once when a scheduler creates it).
inline constexpr const char* kListSchedules =
    R"sql(
SELECT name, spec, coalesce(kind, ''), payload::text, builtin, paused,
       CASE WHEN )sql" AWC_NEXT_RUN_OK R"sql(
            THEN to_char(next_run_at AT TIME ZONE 'UTC',
                         'YYYY-MM-DD"T"HH24:MI:SS"Z"') ELSE '' END,
       coalesce(to_char(last_run_at AT TIME ZONE 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
       coalesce(last_result::text, ''), runs,
       CASE WHEN )sql" AWC_NEXT_RUN_OK R"sql( THEN ''
            ELSE )sql" AWC_NEXT_RUN_TEXT R"sql( END,
       CASE WHEN )sql" AWC_NEXT_RUN_OK R"sql(
            THEN (extract(epoch FROM next_run_at) * 1000000)::bigint END,
       (extract(epoch FROM now()) * 1000000)::bigint
  FROM awc.schedules
UNION ALL
SELECT n, s, k, '{}', true, false, '', '', '', 0, '', NULL, 0
  FROM unnest($1::text[], $2::text[], $3::text[]) AS u(n, s, k)
 WHERE NOT EXISTS (SELECT 1 FROM awc.schedules x WHERE x.name = u.n)
 ORDER BY builtin DESC, name
)sql";

// $1 name. (builtin, paused) of one schedule.
inline constexpr const char* kScheduleFlags = R"sql(
SELECT builtin, paused FROM awc.schedules WHERE name = $1
)sql";

// $1 name, $2 paused.
inline constexpr const char* kSetPaused = R"sql(
UPDATE awc.schedules SET paused = $2::boolean, updated_at = now()
 WHERE name = $1
)sql";

// $1 name. Due now.
inline constexpr const char* kRunNow = R"sql(
UPDATE awc.schedules SET next_run_at = now(), updated_at = now()
 WHERE name = $1
)sql";

// The database's clock in µs.
inline constexpr const char* kNowMicros = R"sql(
SELECT (extract(epoch FROM now()) * 1000000)::bigint
)sql";

// $1 name, $2 spec, $3 next run in µs.
inline constexpr const char* kSetSpec = R"sql(
UPDATE awc.schedules
   SET spec = $2,
       next_run_at = timestamptz 'epoch' + $3::bigint * interval '1 microsecond',
       updated_at = now()
 WHERE name = $1
)sql";

// $1 name, $2 spec, $3 kind, $4 payload, $5 first run in µs. A row when it
// was added (none: the name is taken).
inline constexpr const char* kAddSchedule = R"sql(
INSERT INTO awc.schedules (name, spec, kind, payload, next_run_at)
VALUES ($1, $2, $3, $4::jsonb,
        timestamptz 'epoch' + $5::bigint * interval '1 microsecond')
    ON CONFLICT (name) DO NOTHING
RETURNING 1
)sql";

// $1 name. Removes an operator schedule.
inline constexpr const char* kRemoveSchedule = R"sql(
DELETE FROM awc.schedules WHERE name = $1 AND NOT builtin
)sql";

// Wakes the leading scheduler after an operator's change.
inline constexpr const char* kNotifySchedules =
    "SELECT pg_notify('awc_schedules', '')";

#undef AWC_NEXT_RUN_OK
#undef AWC_NEXT_RUN_TEXT

}  // namespace awc::scheduler::sql

#endif  // AWC_SCHEDULER_SCHEDULER_SQL_H_
