// Every SQL statement of the durable GC, in one place.
//
// "Live" below means: in the closure of a VALIDATING, READY or DEGRADED
// snapshot of the tenant, or the root of one, or pinned. An object is
// eligible when it is LIVE in the inventory, not live, and untouched for the
// grace: greatest(created_at, last_seen_at) < now() - grace.
#ifndef AWC_GC_GC_SQL_H_
#define AWC_GC_GC_SQL_H_

namespace awc::gc::sql {

// The states whose snapshots keep their objects alive.
#define AWC_GC_LIVE_STATES "('VALIDATING', 'READY', 'DEGRADED')"

// "Digest column `d` is not live for tenant $1", as three NOT EXISTS at the
// top of a WHERE clause: PostgreSQL turns each into an anti-join (hash or
// merge) over the whole tenant, where one NOT (a OR b OR c) would run the
// closure probe once per object. The canary negates it for its handful of
// deleted digests.
#define AWC_GC_NOT_LIVE(d)                                                   \
  "NOT EXISTS (SELECT 1 FROM awc.snapshot_objects so JOIN awc.snapshots s "  \
  "ON s.id = so.snapshot_id WHERE so.digest = " d " AND s.tenant_id = $1 "   \
  "AND s.state IN " AWC_GC_LIVE_STATES ") AND NOT EXISTS (SELECT 1 FROM "    \
  "awc.snapshots s WHERE s.tenant_id = $1 AND s.root_digest = " d " AND "    \
  "s.state IN " AWC_GC_LIVE_STATES ") AND NOT EXISTS (SELECT 1 FROM "        \
  "awc.gc_pins p WHERE p.tenant_id = $1 AND p.digest = " d ")"

// $1 tenant, $2 holder, $3 TTL seconds. Returns a row when the lock is
// ours: free, expired, or already held by us.
inline constexpr const char* kTakeLock =
    "INSERT INTO awc.gc_locks (tenant_id, holder, expires_at) VALUES ($1, $2, "
    "now() + make_interval(secs => $3::float8)) ON CONFLICT (tenant_id) DO "
    "UPDATE SET holder = EXCLUDED.holder, acquired_at = now(), expires_at = "
    "EXCLUDED.expires_at WHERE awc.gc_locks.expires_at < now() OR "
    "awc.gc_locks.holder = EXCLUDED.holder RETURNING holder";

// $1 tenant, $2 holder, $3 TTL seconds. A row while the lock is still ours.
inline constexpr const char* kRenewLock =
    "UPDATE awc.gc_locks SET expires_at = now() + make_interval(secs => "
    "$3::float8) WHERE tenant_id = $1 AND holder = $2 RETURNING 1";

inline constexpr const char* kReleaseLock =
    "DELETE FROM awc.gc_locks WHERE tenant_id = $1 AND holder = $2";

inline constexpr const char* kLockHolder =
    "SELECT holder FROM awc.gc_locks WHERE tenant_id = $1";

inline constexpr const char* kTenantExists =
    "SELECT 1 FROM awc.tenants WHERE id = $1";

// $1 tenant. The unfinished epoch to resume, if any.
inline constexpr const char* kOpenEpoch =
    "SELECT id, dry_run, grace_secs, batch_size, canary_size, "
    "canary_verified FROM awc.gc_epochs WHERE tenant_id = $1 AND state IN "
    "('PLANNED', 'DELETING')";

// $1 tenant, $2 grace seconds. A VALIDATING snapshot older than the grace:
// its closure is unknown and its objects may be old, so nothing is planned.
inline constexpr const char* kOldValidating =
    "SELECT id FROM awc.snapshots WHERE tenant_id = $1 AND state = "
    "'VALIDATING' AND created_at < now() - make_interval(secs => $2::float8) "
    "ORDER BY created_at LIMIT 1";

// $1 tenant, $2 grace, $3 dry run, $4 batch, $5 canary, $6 job id, $7 state,
// $8 reason. Returns the epoch id.
inline constexpr const char* kInsertEpoch =
    "INSERT INTO awc.gc_epochs (tenant_id, grace_secs, dry_run, batch_size, "
    "canary_size, job_id, state, reason, finished_at) VALUES ($1, $2, $3, $4, "
    "$5, $6, $7, $8, CASE WHEN $7 IN ('COMPLETED', 'ABORTED', 'REFUSED') "
    "THEN now() END) RETURNING id";

// $1 tenant, $2 grace, $3 epoch, $4 batch size. Records the candidates
// (oldest first, at most $4) and the counts of everything eligible.
inline constexpr const char* kPlan =
    "WITH eligible AS MATERIALIZED (SELECT o.digest, o.size, "
    "greatest(o.created_at, o.last_seen_at) AS touched FROM awc.objects o "
    "WHERE o.tenant_id = $1 AND o.state = 'LIVE' AND greatest(o.created_at, "
    "o.last_seen_at) < now() - make_interval(secs => $2::float8) AND "
    AWC_GC_NOT_LIVE("o.digest") "), "
    "chosen AS (INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, "
    "size, seq) SELECT $3, $1, digest, size, row_number() OVER (ORDER BY "
    "touched, digest) FROM (SELECT * FROM eligible ORDER BY touched, digest "
    "LIMIT $4) x RETURNING 1) "
    "UPDATE awc.gc_epochs SET planned_count = (SELECT count(*) FROM "
    "eligible), planned_bytes = (SELECT coalesce(sum(size), 0) FROM "
    "eligible) WHERE id = $3 RETURNING planned_count, planned_bytes, (SELECT "
    "count(*) FROM chosen)";

// $1 epoch, $2 after seq, $3 limit. The next unfinished candidates.
inline constexpr const char* kNextBatch =
    "SELECT seq FROM awc.gc_candidates WHERE epoch_id = $1 AND state IN "
    "('PLANNED', 'DELETING') AND seq > $2 ORDER BY seq LIMIT $3";

// $1 tenant, $2 grace, $3 epoch, $4 first seq, $5 last seq. Re-checks each
// PLANNED candidate of the batch under the object's row lock: still
// eligible -> object and candidate DELETING, else candidate KEPT.
inline constexpr const char* kMarkBatch =
    "WITH batch AS (SELECT digest FROM awc.gc_candidates WHERE epoch_id = $3 "
    "AND state = 'PLANNED' AND seq BETWEEN $4 AND $5), "
    "marked AS (UPDATE awc.objects o SET state = 'DELETING' WHERE "
    "o.tenant_id = $1 AND o.digest IN (SELECT digest FROM batch) AND o.state "
    "= 'LIVE' AND greatest(o.created_at, o.last_seen_at) < now() - "
    "make_interval(secs => $2::float8) AND " AWC_GC_NOT_LIVE("o.digest")
    " RETURNING o.digest) "
    "UPDATE awc.gc_candidates c SET state = CASE WHEN c.digest IN (SELECT "
    "digest FROM marked) THEN 'DELETING' ELSE 'KEPT' END WHERE c.epoch_id = "
    "$3 AND c.digest IN (SELECT digest FROM batch) RETURNING c.state";

// $1 epoch, $2 first seq, $3 last seq. The batch's objects to delete from
// the store (marked now or by an earlier, interrupted run).
inline constexpr const char* kDeletingInBatch =
    "SELECT digest, size FROM awc.gc_candidates WHERE epoch_id = $1 AND "
    "state = 'DELETING' AND seq BETWEEN $2 AND $3 ORDER BY seq";

// $1 tenant, $2 epoch, $3 first seq, $4 last seq. After the store delete:
// rows removed, candidates DELETED. Returns the count and bytes.
inline constexpr const char* kFinishBatch =
    "WITH done AS (UPDATE awc.gc_candidates SET state = 'DELETED' WHERE "
    "epoch_id = $2 AND state = 'DELETING' AND seq BETWEEN $3 AND $4 "
    "RETURNING digest, size), "
    "gone AS (DELETE FROM awc.objects o USING done WHERE o.tenant_id = $1 "
    "AND o.digest = done.digest AND o.state = 'DELETING' RETURNING 1) "
    "SELECT count(*), coalesce(sum(size), 0), (SELECT count(*) FROM gone) "
    "FROM done";

// $1 epoch, $2 deleted, $3 bytes, $4 kept.
inline constexpr const char* kAddCounts =
    "UPDATE awc.gc_epochs SET state = 'DELETING', deleted_count = "
    "deleted_count + $2, deleted_bytes = deleted_bytes + $3, kept_count = "
    "kept_count + $4 WHERE id = $1";

// $1 tenant, $2 epoch. A deleted candidate that is live after all.
inline constexpr const char* kCanaryViolation =
    "SELECT c.digest FROM awc.gc_candidates c WHERE c.epoch_id = $2 AND "
    "c.state = 'DELETED' AND NOT (" AWC_GC_NOT_LIVE("c.digest") ") LIMIT 1";

inline constexpr const char* kCanaryVerified =
    "UPDATE awc.gc_epochs SET canary_verified = true WHERE id = $1";

// $1 epoch, $2 reason. Everything not yet deleted is kept.
inline constexpr const char* kAbortEpoch =
    "WITH kept AS (UPDATE awc.gc_candidates SET state = 'KEPT' WHERE "
    "epoch_id = $1 AND state = 'PLANNED' RETURNING 1) "
    "UPDATE awc.gc_epochs SET state = 'ABORTED', reason = $2, finished_at = "
    "now(), kept_count = kept_count + (SELECT count(*) FROM kept) WHERE id = "
    "$1";

// $1 epoch. Returns the final counts.
inline constexpr const char* kCompleteEpoch =
    "UPDATE awc.gc_epochs SET state = 'COMPLETED', finished_at = now() WHERE "
    "id = $1 RETURNING planned_count, planned_bytes, deleted_count, "
    "deleted_bytes, kept_count";

inline constexpr const char* kEpochCounts =
    "SELECT planned_count, planned_bytes, deleted_count, deleted_bytes, "
    "kept_count FROM awc.gc_epochs WHERE id = $1";

#undef AWC_GC_NOT_LIVE
#undef AWC_GC_LIVE_STATES

}  // namespace awc::gc::sql

#endif  // AWC_GC_GC_SQL_H_
