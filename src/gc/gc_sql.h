// Every SQL statement of the durable GC, in one place.
//
// "Live" below means: in the closure of a VALIDATING, READY or DEGRADED
// snapshot of the tenant, or the root of one, or pinned. An object is
// eligible when it is LIVE in the inventory, not live, and untouched for the
// grace: greatest(created_at, last_seen_at) < now() - grace. Why these
// rules never delete a live object: docs/gc.md, "GC safety".
//
// Values travel only as $n parameters. The statements run a few times per
// epoch, not per job, and are not prepared: each is planned for its actual
// tenant (tests/gc/plan_test.cc pins the plan's anti-joins and its scan).
#ifndef AWC_GC_GC_SQL_H_
#define AWC_GC_GC_SQL_H_

#include "catalog/dag_sql.h"

namespace awc::gc::sql {

// The states whose snapshots keep their objects alive.
#define AWC_GC_LIVE_STATES "('VALIDATING', 'READY', 'DEGRADED')"

// "Object row `o`, of digest column `d`, is not live for tenant $1": no
// references (awc.objects.refs: from the roots of READY and DEGRADED
// snapshots and the entries of referenced manifests, docs/store.md,
// "Shared content"), not held by a referenced manifest whose file entries
// are not counted yet, in no closure recorded before the DAG
// (awc.legacy_closures) of a live snapshot, not the root of a live
// snapshot (a VALIDATING one has no references yet), not pinned. The
// NOT EXISTS stand at the top of a WHERE clause: PostgreSQL turns each into
// an anti-join (hash or merge) over the whole tenant, where one
// NOT (a OR b OR c) would run the probe once per object. References change
// only under the tenant's DAG lock, which the mark takes, so `refs = 0`
// read there stays true until the mark commits. This fragment is the one
// definition of liveness for the plan and the re-check under row locks (a
// macro, because only literals concatenate at compile time).
// clang-format off
#define AWC_GC_UNREFERENCED(o, d)                                            \
  o ".refs = 0 AND NOT " AWC_DAG_HELD_UNCOUNTED(o, "$1") " AND NOT EXISTS " \
  "(SELECT 1 FROM awc.legacy_closures so JOIN "                              \
  "awc.snapshots s ON s.id = so.snapshot_id WHERE so.digest = " d " AND "    \
  "s.tenant_id = $1 AND s.state IN " AWC_GC_LIVE_STATES ") AND NOT EXISTS "  \
  "(SELECT 1 FROM awc.snapshots s WHERE s.tenant_id = $1 AND "               \
  "s.root_digest = " d " AND s.state IN " AWC_GC_LIVE_STATES ") AND NOT "    \
  "EXISTS (SELECT 1 FROM awc.gc_pins p WHERE p.tenant_id = $1 AND "          \
  "p.digest = " d ")"

// The canary's question for a digest `d` whose row GC removed: is it live
// now by evidence other than its own counter? A referenced manifest whose
// recorded entries name it, a referenced row of the same digest (uploaded
// again since), a closure row from before the DAG, a live root, a pin.
#define AWC_GC_LIVE_NOW(d)                                                   \
  "EXISTS (SELECT 1 FROM awc.object_edges e JOIN awc.objects p ON "          \
  "p.tenant_id = $1 AND p.digest = 'sha256:' || encode(e.parent, 'hex') "    \
  "WHERE e.tenant_id = $1 AND e.child = decode(substr(" d ", 8), 'hex') "    \
  "AND p.refs > 0 AND p.manifest_entries) OR EXISTS (SELECT 1 FROM "         \
  "awc.objects x WHERE x.tenant_id = $1 AND x.digest = " d " AND "           \
  "x.refs > 0) OR EXISTS (SELECT 1 FROM awc.legacy_closures so JOIN "        \
  "awc.snapshots s ON s.id = so.snapshot_id WHERE so.digest = " d " AND "    \
  "s.tenant_id = $1 AND s.state IN " AWC_GC_LIVE_STATES ") OR EXISTS "       \
  "(SELECT 1 FROM awc.snapshots s WHERE s.tenant_id = $1 AND "               \
  "s.root_digest = " d " AND s.state IN " AWC_GC_LIVE_STATES ") OR EXISTS "  \
  "(SELECT 1 FROM awc.gc_pins p WHERE p.tenant_id = $1 AND p.digest = " d ")"
// clang-format on

// $1 tenant, $2 holder, $3 TTL seconds. Returns a row when the lock is
// ours: free, expired, or already held by us.
inline constexpr const char* kTakeLock = R"sql(
INSERT INTO awc.gc_locks (tenant_id, holder, expires_at)
VALUES ($1, $2, now() + make_interval(secs => $3::float8))
    ON CONFLICT (tenant_id) DO UPDATE
   SET holder = EXCLUDED.holder, acquired_at = now(),
       expires_at = EXCLUDED.expires_at
 WHERE awc.gc_locks.expires_at < now()
    OR awc.gc_locks.holder = EXCLUDED.holder
RETURNING holder
)sql";

// $1 a duration ("1000ms"). Taking the lock waits at most this long for
// a sweeper that holds the lock row while it deletes a batch (step 5).
inline constexpr const char* kBoundLockWait =
    "SELECT set_config('lock_timeout', $1, true)";

// The transaction of a batch's store delete holds the lock row until the
// batch's rows are gone, so a server-side idle timeout must not end it
// while the store call runs: the lock could then be taken over mid-delete.
inline constexpr const char* kNoIdleTimeout =
    "SELECT set_config('idle_in_transaction_session_timeout', '0', true)";

// $1 tenant, $2 holder, $3 TTL seconds. A row while the lock is still ours.
inline constexpr const char* kRenewLock = R"sql(
UPDATE awc.gc_locks SET expires_at = now() + make_interval(secs => $3::float8)
 WHERE tenant_id = $1 AND holder = $2
RETURNING 1
)sql";

// $1 tenant, $2 holder.
inline constexpr const char* kReleaseLock = R"sql(
DELETE FROM awc.gc_locks WHERE tenant_id = $1 AND holder = $2
)sql";

// $1 tenant. Who holds the lock, for the locked-out verdict's reason.
inline constexpr const char* kLockHolder = R"sql(
SELECT holder FROM awc.gc_locks WHERE tenant_id = $1
)sql";

// $1 tenant.
inline constexpr const char* kTenantExists = R"sql(
SELECT 1 FROM awc.tenants WHERE id = $1
)sql";

// $1 tenant. The unfinished epoch to resume, if any.
inline constexpr const char* kOpenEpoch = R"sql(
SELECT id, dry_run, grace_secs, batch_size, canary_size, canary_verified
  FROM awc.gc_epochs
 WHERE tenant_id = $1 AND state IN ('PLANNED', 'DELETING')
)sql";

// $1 tenant, $2 grace seconds. A VALIDATING snapshot older than the grace:
// its closure is unknown and its objects may be old, so nothing is planned.
inline constexpr const char* kOldValidating = R"sql(
SELECT id FROM awc.snapshots
 WHERE tenant_id = $1 AND state = 'VALIDATING'
   AND created_at < now() - make_interval(secs => $2::float8)
 ORDER BY created_at LIMIT 1
)sql";

// $1 tenant, $2 grace, $3 dry run, $4 batch, $5 canary, $6 job id, $7 state,
// $8 reason. Returns the epoch id.
inline constexpr const char* kInsertEpoch = R"sql(
INSERT INTO awc.gc_epochs (tenant_id, grace_secs, dry_run, batch_size,
                           canary_size, job_id, state, reason, finished_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
        CASE WHEN $7 IN ('COMPLETED', 'ABORTED', 'REFUSED') THEN now() END)
RETURNING id
)sql";

// $1 tenant, $2 grace. Every eligible object: digest, size, and its last
// touch in microseconds since the epoch (the deletion order, with the
// digest). The worker streams the rows and keeps only the counts and the
// oldest batch (gc/eligible_tally.h). Read-only on purpose: PostgreSQL may
// then run the anti-joins with parallel workers, and nothing is
// materialized on the server (docs/gc.md, "GC at scale").
inline constexpr const char* kEligible = R"sql(
SELECT o.digest, o.size,
       (extract(epoch FROM greatest(o.created_at, o.last_seen_at))
        * 1000000)::int8
  FROM awc.objects o
 WHERE o.tenant_id = $1 AND o.state = 'LIVE'
   AND greatest(o.created_at, o.last_seen_at)
       < now() - make_interval(secs => $2::float8)
   AND )sql" AWC_GC_UNREFERENCED("o", "o.digest") R"sql(
)sql";

// $1 tenant, $2 epoch, $3 candidates' digests (text[], deletion order),
// $4 their sizes (bigint[]), $5 eligible count, $6 eligible bytes. Records
// the plan; returns the counts and how many candidates were recorded.
inline constexpr const char* kRecordPlan = R"sql(
WITH chosen AS (
  INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, size, seq)
  SELECT $2, $1, c.digest, c.size, c.seq
    FROM unnest($3::text[], $4::int8[]) WITH ORDINALITY AS c(digest, size, seq)
  RETURNING 1)
UPDATE awc.gc_epochs SET planned_count = $5, planned_bytes = $6
 WHERE id = $2
RETURNING planned_count, planned_bytes, (SELECT count(*) FROM chosen)
)sql";

// $1 epoch. The highest candidate seq (0 when none): the deletion order
// runs 1..this.
inline constexpr const char* kLastSeq = R"sql(
SELECT coalesce(max(seq), 0) FROM awc.gc_candidates WHERE epoch_id = $1
)sql";

// $1 tenant, $2 grace, $3 epoch, $4 first seq, $5 last seq. Re-checks each
// PLANNED candidate of the batch under the object's row lock: still
// eligible, and under no manifest a producer touched within the grace
// (through the recorded entries: a producer may touch only the top of a
// subtree it reuses, docs/data-model.md) -> object and candidate DELETING,
// else candidate KEPT.
inline constexpr const char* kMarkBatch = R"sql(
WITH batch AS (
  SELECT digest FROM awc.gc_candidates
   WHERE epoch_id = $3 AND state = 'PLANNED' AND seq BETWEEN $4 AND $5),
marked AS (
  UPDATE awc.objects o SET state = 'DELETING'
   WHERE o.tenant_id = $1 AND o.digest IN (SELECT digest FROM batch)
     AND o.state = 'LIVE'
     AND greatest(o.created_at, o.last_seen_at)
         < now() - make_interval(secs => $2::float8)
     AND )sql" AWC_GC_UNREFERENCED("o", "o.digest") R"sql(
     AND NOT EXISTS (
       WITH RECURSIVE up(d) AS (
         SELECT e.parent FROM awc.object_edges e
          WHERE e.tenant_id = $1 AND e.child = decode(substr(o.digest, 8), 'hex')
         UNION
         SELECT e.parent FROM up
           JOIN awc.object_edges e ON e.tenant_id = $1 AND e.child = up.d)
       SELECT 1 FROM up
         JOIN awc.objects a
           ON a.tenant_id = $1 AND a.digest = 'sha256:' || encode(up.d, 'hex')
        WHERE greatest(a.created_at, a.last_seen_at)
              >= now() - make_interval(secs => $2::float8))
  RETURNING o.digest)
UPDATE awc.gc_candidates c
   SET state = CASE WHEN c.digest IN (SELECT digest FROM marked)
                    THEN 'DELETING' ELSE 'KEPT' END
 WHERE c.epoch_id = $3 AND c.digest IN (SELECT digest FROM batch)
RETURNING c.state
)sql";

// $1 epoch, $2 first seq, $3 last seq. The batch's objects to delete from
// the store (marked now or by an earlier, interrupted run).
inline constexpr const char* kDeletingInBatch = R"sql(
SELECT digest, size FROM awc.gc_candidates
 WHERE epoch_id = $1 AND state = 'DELETING' AND seq BETWEEN $2 AND $3
 ORDER BY seq
)sql";

// $1 epoch, $2 seq. The first candidate after $2 that is DELETING (marked
// by an earlier attempt), NULL when there is none.
inline constexpr const char* kNextDeletingSeq = R"sql(
SELECT min(seq) FROM awc.gc_candidates
 WHERE epoch_id = $1 AND state = 'DELETING' AND seq > $2
)sql";

// $1 tenant, $2 epoch, $3 first seq, $4 last seq. After the store delete:
// rows removed with the recorded entries of deleted manifests, candidates
// DELETED. Returns the count and bytes.
inline constexpr const char* kFinishBatch = R"sql(
WITH done AS (
  UPDATE awc.gc_candidates SET state = 'DELETED'
   WHERE epoch_id = $2 AND state = 'DELETING' AND seq BETWEEN $3 AND $4
  RETURNING digest, size),
gone AS (
  DELETE FROM awc.objects o USING done
   WHERE o.tenant_id = $1 AND o.digest = done.digest
     AND o.state = 'DELETING'
  RETURNING 1),
entries AS (
  DELETE FROM awc.object_edges e USING done
   WHERE e.tenant_id = $1 AND e.parent = decode(substr(done.digest, 8), 'hex')
  RETURNING 1)
SELECT count(*), coalesce(sum(size), 0), (SELECT count(*) FROM gone)
  FROM done
)sql";

// $1 epoch, $2 deleted, $3 bytes, $4 kept.
inline constexpr const char* kAddCounts = R"sql(
UPDATE awc.gc_epochs
   SET state = 'DELETING', deleted_count = deleted_count + $2,
       deleted_bytes = deleted_bytes + $3, kept_count = kept_count + $4
 WHERE id = $1
)sql";

// $1 tenant, $2 epoch. The deleted candidates that are live now, each
// with whether it has a LIVE inventory row again: a producer uploaded it
// anew since (rules 1 and 3 of the inventory protocol), so what reaches it
// has it; the worker confirms that in the store. One live now without
// such a row is a live object deleted.
inline constexpr const char* kCanaryLiveNow = R"sql(
SELECT c.digest,
       EXISTS (SELECT 1 FROM awc.objects x WHERE x.tenant_id = $1
                  AND x.digest = c.digest AND x.state = 'LIVE')
  FROM awc.gc_candidates c
 WHERE c.epoch_id = $2 AND c.state = 'DELETED'
   AND ()sql" AWC_GC_LIVE_NOW("c.digest") R"sql()
 ORDER BY c.seq
)sql";

// $1 epoch.
inline constexpr const char* kCanaryVerified = R"sql(
UPDATE awc.gc_epochs SET canary_verified = true WHERE id = $1
)sql";

// $1 epoch, $2 reason, $3 'ABORTED' (the canary) or 'REFUSED' (held by a
// validation). The epoch ends early: everything not yet deleted is kept.
inline constexpr const char* kEndEpochEarly = R"sql(
WITH kept AS (
  UPDATE awc.gc_candidates SET state = 'KEPT'
   WHERE epoch_id = $1 AND state = 'PLANNED'
  RETURNING 1)
UPDATE awc.gc_epochs
   SET state = $3, reason = $2, finished_at = now(),
       kept_count = kept_count + (SELECT count(*) FROM kept)
 WHERE id = $1
)sql";

// $1 epoch. Returns the final counts.
inline constexpr const char* kCompleteEpoch = R"sql(
UPDATE awc.gc_epochs SET state = 'COMPLETED', finished_at = now()
 WHERE id = $1 AND state IN ('PLANNED', 'DELETING')
RETURNING planned_count, planned_bytes, deleted_count, deleted_bytes,
          kept_count
)sql";

// $1 epoch.
inline constexpr const char* kEpochCounts = R"sql(
SELECT planned_count, planned_bytes, deleted_count, deleted_bytes, kept_count
  FROM awc.gc_epochs WHERE id = $1
)sql";

// The last epoch of each tenant, for awcctl stats and the console: (tenant,
// epoch id, state, dry run, planned, deleted, kept, created_at ISO 8601
// UTC, seconds since it finished or NULL while open), by tenant. One probe
// of gc_epochs_tenant_idx per tenant, however long the history.
inline constexpr const char* kLastEpochs = R"sql(
SELECT e.tenant_id, e.id, e.state, e.dry_run, e.planned_count,
       e.deleted_count, e.kept_count,
       to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       extract(epoch FROM now() - e.finished_at)
  FROM awc.tenants t
 CROSS JOIN LATERAL (SELECT * FROM awc.gc_epochs x WHERE x.tenant_id = t.id
                      ORDER BY x.id DESC LIMIT 1) e
 ORDER BY t.id
)sql";

#undef AWC_GC_UNREFERENCED
#undef AWC_GC_LIVE_NOW
#undef AWC_GC_LIVE_STATES

}  // namespace awc::gc::sql

#endif  // AWC_GC_GC_SQL_H_
