// Every SQL statement of the console (awcctl serve; docs/console.md,
// "Console"), in one place. What awcctl's verbs already read — dead
// letters, workers, workspaces by state, the last GC epochs, one job, the
// schedules and the scheduler's leader — comes from their modules'
// functions instead.
//
// All statements only read, and run unprepared in a READ ONLY transaction.
// Values travel as $n parameters. Listings are keyset-paged on the id,
// newest first: "older" pages take the rows below a cursor, "newer" ones
// the rows above it (in ascending order; the caller reverses them). The
// job statements read each state of awc.jobs through the partial index
// that holds it (migrations/0009_jobs_write_cost.sql): PENDING jobs from
// jobs_pending_kind_idx (and, by ready time, jobs_pending_ready_idx),
// RUNNING ones from jobs_lease_idx, dead letters from jobs_dead_letter_idx,
// COMPLETED and CANCELLED ones from jobs_finished_kind_idx, so their cost
// follows the rows they show, not the size of the history, and a job
// enters each of these indexes at most once.
#ifndef AWC_CONSOLE_CONSOLE_SQL_H_
#define AWC_CONSOLE_CONSOLE_SQL_H_

#include "queue/queue_sql.h"

namespace awc::console::sql {

#define AWC_CONSOLE_TS(col) \
  "coalesce(to_char(" col   \
  " AT TIME ZONE 'UTC', "   \
  "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '')"

// The database's clock (epoch seconds, ISO text) and the planner's
// estimate of the rows of awc.jobs as of its last ANALYZE, NULL while the
// table has never been analyzed (reltuples -1).
inline constexpr const char* kClock =
    "SELECT extract(epoch FROM now()), " AWC_CONSOLE_TS("now()") R"sql(,
       (SELECT CASE WHEN reltuples >= 0 THEN reltuples::bigint END
          FROM pg_class WHERE oid = 'awc.jobs'::regclass)
)sql";

// One walk over the kinds of the jobs in `where`, which must match a
// partial index's predicate that leads with the kind: one step per kind,
// however many jobs each has.
#define AWC_CONSOLE_KINDS_IN(name, where)               \
  name "(kind) AS (\n"                                  \
       "  SELECT min(kind) FROM awc.jobs WHERE " where  \
       "\n"                                             \
       "  UNION ALL\n"                                  \
       "  SELECT (SELECT min(j.kind) FROM awc.jobs j\n" \
       "           WHERE " where                        \
       " AND j.kind > w.kind)\n"                        \
       "    FROM " name " w WHERE w.kind IS NOT NULL)"

// The kinds of awc.jobs (and a NULL), each state's from its own index:
// RUNNING jobs are few, one per busy worker at most.
#define AWC_CONSOLE_KINDS \
  "WITH RECURSIVE "                                                      \
  AWC_CONSOLE_KINDS_IN("pending_kinds", "state = 'PENDING'") ",\n"       \
  AWC_CONSOLE_KINDS_IN("dead_kinds", "state = 'FAILED'") ",\n"           \
  AWC_CONSOLE_KINDS_IN("finished_kinds",                                 \
                       "state IN ('COMPLETED', 'CANCELLED')") ",\n"      \
  "kinds(kind) AS (\n"                                                   \
  "  SELECT kind FROM pending_kinds UNION SELECT kind FROM dead_kinds\n" \
  "  UNION SELECT kind FROM finished_kinds\n"                            \
  "  UNION SELECT kind FROM awc.jobs\n"                                  \
  "         WHERE state = 'RUNNING' AND locked_until IS NOT NULL)\n"

// $1 the cap on the counts of ready, scheduled and COMPLETED jobs. Per
// kind: (kind, ready up to $1, scheduled up to $1, running, failed,
// cancelled, completed up to $1, seconds the oldest ready job has waited
// or NULL), by kind. A PENDING job is ready once AWC_QUEUE_READY_SINCE
// (queue/queue_sql.h) has come, and has waited since then, as awcctl stats
// counts it. PENDING jobs are read from jobs_pending_ready_idx
// (migrations/0008_console_backlog.sql): each count stops at the cap and
// the oldest is one probe, so a backlog costs no more than a quiet queue.
// A RUNNING job always has its locked_until (jobs_lease_idx).
//
// The capped COMPLETED count walks jobs_finished_kind_idx (kind, state, id)
// backwards: COMPLETED sorts after CANCELLED, so its first $1 entries hold
// min(completed, $1) COMPLETED jobs. Only that index yields the order
// without sorting the kind's history. Unordered, a LIMIT let the planner
// pick a heap scan that stops at the cap, which reads the whole table when
// the kind's finished jobs sit at its end.
inline constexpr const char* kKindCounts = AWC_CONSOLE_KINDS R"sql(
SELECT k.kind,
       (SELECT count(*) FROM (SELECT 1 FROM awc.jobs j
                               WHERE j.kind = k.kind AND j.state = 'PENDING'
                                 AND )sql" AWC_QUEUE_READY_SINCE R"sql( <= now()
                               LIMIT $1) c),
       (SELECT count(*) FROM (SELECT 1 FROM awc.jobs j
                               WHERE j.kind = k.kind AND j.state = 'PENDING'
                                 AND )sql" AWC_QUEUE_READY_SINCE R"sql( > now()
                               LIMIT $1) c),
       (SELECT count(*) FROM awc.jobs j
         WHERE j.kind = k.kind AND j.state = 'RUNNING'
           AND j.locked_until IS NOT NULL),
       (SELECT count(*) FROM awc.jobs j
         WHERE j.kind = k.kind AND j.state = 'FAILED'),
       (SELECT count(*) FROM awc.jobs j
         WHERE j.kind = k.kind AND j.state = 'CANCELLED'),
       (SELECT count(*) FILTER (WHERE c.state = 'COMPLETED')
          FROM (SELECT j.state FROM awc.jobs j
                 WHERE j.kind = k.kind
                   AND j.state IN ('COMPLETED', 'CANCELLED')
                 ORDER BY j.state DESC, j.id DESC
                 LIMIT $1) c),
       (SELECT extract(epoch FROM now()
                                  - min()sql" AWC_QUEUE_READY_SINCE R"sql())
          FROM awc.jobs j
         WHERE j.kind = k.kind AND j.state = 'PENDING'
           AND )sql" AWC_QUEUE_READY_SINCE R"sql( <= now())
  FROM kinds k
 WHERE k.kind IS NOT NULL
 ORDER BY k.kind
)sql";

// The columns of a job listing, in queue::JobRowAt's order.
#define AWC_CONSOLE_JOB_ROW \
  "j.id, j.kind, j.state, j.attempts, j.max_attempts, " AWC_CONSOLE_TS(      \
      "j.run_at") ", " AWC_CONSOLE_TS("j.updated_at") ", " AWC_CONSOLE_TS( \
      "j.finished_at") ", "                                                  \
                       "coalesce(j.locked_by, ''), "                         \
                       "coalesce(j.dead_reason, ''), "                       \
                       "coalesce(j.last_error, '')"

// The ids of one kind's jobs in one state past the cursor, for a job
// page: none unless the filter $1 allows the state. `where` picks the
// state the way its index's predicate does. The kind is matched as a
// range of one value and the ids ordered by (kind, id): with an equality
// the kind would drop out of the order, and the planner, which cannot
// tell a rare kind from a common one here, could walk the primary key
// down the whole history filtering on kind and state (a few rows for a
// common kind, every finished job for a rare one). Only the state's index
// on (kind, ..., id) gives this order.
#define AWC_CONSOLE_JOB_IDS(state, where, cmp, dir)   \
  "    (SELECT x.id FROM awc.jobs x\n"                \
  "      WHERE $1 IN ('', '" state                    \
  "') AND x.kind >= k.kind"                           \
  " AND x.kind <= k.kind AND " where " AND x.id " cmp \
  " $4\n"                                             \
  "      ORDER BY x.kind " dir ", x.id " dir " LIMIT $5)\n"

// $1 state or '', $2 kind or '', $3 dead reason or '', $4 cursor, $5 limit.
// One page of jobs: for each kind and state the filter allows, the ids
// past the cursor from that state's index, merged; then those rows. Only
// dead letters have a reason. `cmp` and `dir` make it an older page (<,
// DESC) or a newer one (>, ASC).
#define AWC_CONSOLE_JOB_PAGE(cmp, dir) \
  AWC_CONSOLE_KINDS                    \
  ", picked(kind) AS (\n"                                                  \
  "  SELECT kind FROM kinds WHERE kind IS NOT NULL AND $2 = ''\n"          \
  "  UNION ALL SELECT $2 WHERE $2 <> ''),\n"                               \
  "page(id) AS (\n"                                                        \
  "  SELECT i.id FROM picked k CROSS JOIN LATERAL (\n"                     \
  AWC_CONSOLE_JOB_IDS("PENDING", "x.state = 'PENDING' AND $3 = ''", cmp,   \
                      dir)                                                 \
  "    UNION ALL\n"                                                        \
  AWC_CONSOLE_JOB_IDS("RUNNING",                                           \
                      "x.state = 'RUNNING' AND x.locked_until IS NOT NULL" \
                      " AND $3 = ''",                                      \
                      cmp, dir)                                            \
  "    UNION ALL\n"                                                        \
  AWC_CONSOLE_JOB_IDS("FAILED",                                            \
                      "x.state = 'FAILED' AND ($3 = '' OR x.dead_reason = $3)", \
                      cmp, dir)                                            \
  "    UNION ALL\n"                                                        \
  AWC_CONSOLE_JOB_IDS("COMPLETED", "x.state = 'COMPLETED' AND $3 = ''",    \
                      cmp, dir)                                            \
  "    UNION ALL\n"                                                        \
  AWC_CONSOLE_JOB_IDS("CANCELLED", "x.state = 'CANCELLED' AND $3 = ''",    \
                      cmp, dir)                                            \
  "  ) i\n"                                                                \
  "   ORDER BY i.id " dir                                                  \
  " LIMIT $5)\n"                                                           \
  "SELECT " AWC_CONSOLE_JOB_ROW                                            \
  "\n  FROM page p JOIN awc.jobs j ON j.id = p.id\n"                       \
  " ORDER BY j.id " dir

inline constexpr const char* kJobsOlder = AWC_CONSOLE_JOB_PAGE("<", "DESC");
inline constexpr const char* kJobsNewer = AWC_CONSOLE_JOB_PAGE(">", "ASC");

// Dead letters by kind: (kind, count), by kind (jobs_dead_letter_idx).
inline constexpr const char* kDeadLettersByKind = R"sql(
SELECT kind, count(*) FROM awc.jobs WHERE state = 'FAILED'
 GROUP BY kind ORDER BY kind
)sql";

// $1 the cap. Snapshots by state, each counted up to $1 (snapshots_state_idx):
// (state, count), in the states' order; states without snapshots have 0.
inline constexpr const char* kSnapshotStates = R"sql(
SELECT s.state,
       (SELECT count(*) FROM (SELECT 1 FROM awc.snapshots x
                               WHERE x.state = s.state LIMIT $1) c)
  FROM unnest(ARRAY['VALIDATING', 'READY', 'DEGRADED', 'FAILED',
                    'RELEASED']) WITH ORDINALITY s(state, n)
 ORDER BY s.n
)sql";

// The columns of a snapshot listing (SnapshotRow's order).
#define AWC_CONSOLE_SNAPSHOT_ROW \
  "id, tenant_id, coalesce(workspace_id, 0), state, pinned, " \
  "root_digest, "  \
  AWC_CONSOLE_TS("created_at") ", " AWC_CONSOLE_TS("validated_at") ", "     \
  AWC_CONSOLE_TS("scrubbed_at") ", " AWC_CONSOLE_TS("released_at") ", "     \
  "object_count, byte_count, coalesce(failure ->> 'code', ''), "            \
  "coalesce(failure ->> 'digest', ''), coalesce(failure::text, '')"

// $1 tenant or '', $2 state or '', $3 cursor, $4 limit. A page of
// snapshots.
#define AWC_CONSOLE_SNAPSHOT_PAGE(cmp, dir)                          \
  "SELECT " AWC_CONSOLE_SNAPSHOT_ROW                                 \
  " FROM awc.snapshots\n"                                            \
  " WHERE ($1 = '' OR tenant_id = $1) AND ($2 = '' OR state = $2)\n" \
  "   AND id " cmp                                                   \
  " $3\n"                                                            \
  " ORDER BY id " dir " LIMIT $4"

inline constexpr const char* kSnapshotsOlder =
    AWC_CONSOLE_SNAPSHOT_PAGE("<", "DESC");
inline constexpr const char* kSnapshotsNewer =
    AWC_CONSOLE_SNAPSHOT_PAGE(">", "ASC");

// $1 snapshot id. One snapshot, in the listing's columns.
inline constexpr const char* kSnapshot =
    "SELECT " AWC_CONSOLE_SNAPSHOT_ROW " FROM awc.snapshots WHERE id = $1";

// The columns of an audit listing (AuditRow's order).
#define AWC_CONSOLE_AUDIT_ROW                                                 \
  "id, coalesce(tenant_id, ''), event, subject, data::text, " AWC_CONSOLE_TS( \
      "created_at")

// $1 subject ('snapshot/<id>'). What validation, scrubs and retention did
// to one snapshot, newest first (audit_events_subject_idx).
inline constexpr const char* kSnapshotHistory =
    "SELECT " AWC_CONSOLE_AUDIT_ROW R"sql(
  FROM awc.audit_events
 WHERE event IN ('snapshot.validate', 'snapshot.scrub', 'snapshot.released')
   AND subject = $1
 ORDER BY id DESC LIMIT 200
)sql";

// $1 event or '', $2 tenant or '', $3 subject or '', $4 cursor, $5 limit.
// A page of the audit trail.
#define AWC_CONSOLE_AUDIT_PAGE(cmp, dir)                             \
  "SELECT " AWC_CONSOLE_AUDIT_ROW                                    \
  " FROM awc.audit_events\n"                                         \
  " WHERE ($1 = '' OR event = $1) AND ($2 = '' OR tenant_id = $2)\n" \
  "   AND ($3 = '' OR subject = $3) AND id " cmp                     \
  " $4\n"                                                            \
  " ORDER BY id " dir " LIMIT $5"

inline constexpr const char* kAuditOlder = AWC_CONSOLE_AUDIT_PAGE("<", "DESC");
inline constexpr const char* kAuditNewer = AWC_CONSOLE_AUDIT_PAGE(">", "ASC");

// $1 tenant or '', $2 cursor, $3 limit. A page of GC epochs (EpochRow's
// order).
#define AWC_CONSOLE_EPOCH_PAGE(cmp, dir) \
  "SELECT id, tenant_id, state, dry_run, planned_count, planned_bytes, "   \
  "deleted_count, deleted_bytes, kept_count, canary_verified, "            \
  "coalesce(reason, ''), coalesce(job_id, 0), " AWC_CONSOLE_TS(            \
      "created_at") ", " AWC_CONSOLE_TS("finished_at")                     \
  " FROM awc.gc_epochs\n"                                                  \
  " WHERE ($1 = '' OR tenant_id = $1) AND id " cmp " $2\n"                 \
  " ORDER BY id " dir " LIMIT $3"

inline constexpr const char* kEpochsOlder = AWC_CONSOLE_EPOCH_PAGE("<", "DESC");
inline constexpr const char* kEpochsNewer = AWC_CONSOLE_EPOCH_PAGE(">", "ASC");

// GC's tenant locks: (tenant, holder, acquired_at, expires_at, expired),
// by tenant.
inline constexpr const char* kGcLocks =
    "SELECT tenant_id, holder, " AWC_CONSOLE_TS(
        "acquired_at") ", " AWC_CONSOLE_TS("expires_at") R"sql(, expires_at <= now()
  FROM awc.gc_locks ORDER BY tenant_id
)sql";

#undef AWC_CONSOLE_EPOCH_PAGE
#undef AWC_CONSOLE_AUDIT_PAGE
#undef AWC_CONSOLE_AUDIT_ROW
#undef AWC_CONSOLE_SNAPSHOT_PAGE
#undef AWC_CONSOLE_SNAPSHOT_ROW
#undef AWC_CONSOLE_JOB_PAGE
#undef AWC_CONSOLE_JOB_IDS
#undef AWC_CONSOLE_JOB_ROW
#undef AWC_CONSOLE_KINDS
#undef AWC_CONSOLE_KINDS_IN
#undef AWC_CONSOLE_TS

}  // namespace awc::console::sql

#endif  // AWC_CONSOLE_CONSOLE_SQL_H_
