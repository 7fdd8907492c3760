// Every SQL statement of the catalog (snapshots, their closures, workspaces,
// tenants, the inventory outside GC, audit events), in one place.
//
// Values travel only as $n parameters. The statements the handlers run
// (once or more per job) are executed with PgConn::ExecCached, prepared once
// per connection; the producer-side ones of `awcctl import` run once per
// import and are executed unprepared (docs/ARCHITECTURE.md, "Where code
// goes"). States are SQL literals here and catalog/states.h enums in C++.
#ifndef AWC_CATALOG_CATALOG_SQL_H_
#define AWC_CATALOG_CATALOG_SQL_H_

namespace awc::catalog::sql {

// --- Snapshots: the handlers' statements (prepared) -----------------------

// $1 snapshot id. Returns (id, tenant_id, workspace_id, root_digest, state,
// pinned, age in seconds on the database clock, holds_refs).
inline constexpr const char* kLoadSnapshot = R"sql(
SELECT id, tenant_id, workspace_id, root_digest, state, pinned,
       extract(epoch FROM now() - created_at), holds_refs
  FROM awc.snapshots WHERE id = $1
)sql";

// $1 snapshot id. Locks the row while it is still VALIDATING.
inline constexpr const char* kLockValidating = R"sql(
SELECT 1 FROM awc.snapshots WHERE id = $1 AND state = 'VALIDATING' FOR UPDATE
)sql";

// $1 snapshot id, $2 object count, $3 byte count. Run under
// kLockValidating's row lock, after the root's reference was given.
inline constexpr const char* kSetReady = R"sql(
UPDATE awc.snapshots
   SET state = 'READY', validated_at = now(), object_count = $2,
       byte_count = $3, failure = NULL, holds_refs = true
 WHERE id = $1
)sql";

// $1 snapshot id, $2 failure (JSON object). A row when it applied.
inline constexpr const char* kSetFailed = R"sql(
UPDATE awc.snapshots
   SET state = 'FAILED', validated_at = now(), failure = $2::jsonb
 WHERE id = $1 AND state = 'VALIDATING'
RETURNING id
)sql";

// $1 snapshot id, $2 tenant, $3 after digest, $4 limit. A page of the
// closure rows from before the DAG with the inventory's sizes (NULL when no
// row).
inline constexpr const char* kClosurePage = R"sql(
SELECT so.digest, o.size
  FROM awc.legacy_closures so
  LEFT JOIN awc.objects o ON o.tenant_id = $2 AND o.digest = so.digest
 WHERE so.snapshot_id = $1 AND so.digest > $3
 ORDER BY so.digest LIMIT $4
)sql";

// $1 snapshot id. A row when it applied.
inline constexpr const char* kSetScrubbed = R"sql(
UPDATE awc.snapshots SET scrubbed_at = now()
 WHERE id = $1 AND state = 'READY'
RETURNING id
)sql";

// $1 snapshot id. A DEGRADED snapshot whose every object verified good
// again (repaired, or restored by hand) is READY again; its failure goes
// (the audit trail keeps it), and so do the pins its degradation made.
inline constexpr const char* kSetRestored = R"sql(
WITH s AS (
  UPDATE awc.snapshots
     SET state = 'READY', failure = NULL, scrubbed_at = now()
   WHERE id = $1 AND state = 'DEGRADED'
  RETURNING id),
unpinned AS (
  DELETE FROM awc.gc_pins p USING s
   WHERE p.snapshot_id = s.id AND p.reason = 'degraded'
  RETURNING 1)
SELECT id, (SELECT count(*) FROM unpinned) FROM s
)sql";

// $1 snapshot id. A READY snapshot from before the DAG (or set READY by
// someone else than validation), its closure just walked and recorded,
// now holds references, and its closure rows from before go.
inline constexpr const char* kHoldRefs = R"sql(
UPDATE awc.snapshots SET holds_refs = true
 WHERE id = $1 AND state = 'READY' AND NOT holds_refs
RETURNING id
)sql";
inline constexpr const char* kDropLegacyClosure = R"sql(
DELETE FROM awc.legacy_closures WHERE snapshot_id = $1
)sql";

// $1 snapshot id, $2 failure (JSON object). A row when it applied.
inline constexpr const char* kSetDegraded = R"sql(
UPDATE awc.snapshots
   SET state = 'DEGRADED', scrubbed_at = now(), failure = $2::jsonb
 WHERE id = $1 AND state = 'READY'
RETURNING id
)sql";

// $1 snapshot id, $2 tenant. Pins the snapshot's whole closure (the view
// gives it from the DAG or from the rows recorded before it).
inline constexpr const char* kPinClosure = R"sql(
INSERT INTO awc.gc_pins (tenant_id, digest, snapshot_id, reason)
SELECT $2, digest, snapshot_id, 'degraded'
  FROM awc.snapshot_objects WHERE snapshot_id = $1
    ON CONFLICT DO NOTHING
)sql";

// $1 workspace id. Locks the workspace row; returns (state, retention).
inline constexpr const char* kLockWorkspaceRetention = R"sql(
SELECT state, retention::text FROM awc.workspaces WHERE id = $1 FOR UPDATE
)sql";

// $1 workspace id, $2 snapshot id. 1 + the READY snapshots of the workspace
// newer than this one (by created_at, then id).
inline constexpr const char* kReadyRank = R"sql(
SELECT count(*) + 1 FROM awc.snapshots
 WHERE workspace_id = $1 AND state = 'READY'
   AND (created_at, id) > (SELECT created_at, id FROM awc.snapshots
                            WHERE id = $2)
)sql";

// $1 snapshot id, $2 even if pinned (boolean). A row when it applied.
inline constexpr const char* kRelease = R"sql(
UPDATE awc.snapshots SET state = 'RELEASED', released_at = now()
 WHERE id = $1 AND state = 'READY' AND (NOT pinned OR $2::boolean)
RETURNING id
)sql";

// --- Workspaces: workspace_expire (prepared) ------------------------------

// $1 workspace id, $2 grace seconds. Locks the row; returns (tenant_id,
// state, due, renewed, grace over, expires_at as ISO text, end of the grace
// as ISO text).
inline constexpr const char* kLockWorkspace = R"sql(
SELECT tenant_id, state,
       expires_at IS NOT NULL AND expires_at <= now(),
       expires_at IS NULL OR expires_at > now(),
       expiring_since + make_interval(secs => $2::float8) <= now(),
       to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       to_char((expiring_since + make_interval(secs => $2::float8))
               AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  FROM awc.workspaces WHERE id = $1 FOR UPDATE
)sql";

// $1 workspace id.
inline constexpr const char* kSetExpiring = R"sql(
UPDATE awc.workspaces SET state = 'EXPIRING', expiring_since = now()
 WHERE id = $1
)sql";

// $1 workspace id.
inline constexpr const char* kSetRenewed = R"sql(
UPDATE awc.workspaces SET state = 'ACTIVE', expiring_since = NULL
 WHERE id = $1
)sql";

// $1 workspace id.
inline constexpr const char* kSetExpired = R"sql(
UPDATE awc.workspaces SET state = 'EXPIRED', expired_at = now() WHERE id = $1
)sql";

// $1 workspace id. Releases every snapshot of the workspace not released
// yet; a row per snapshot.
inline constexpr const char* kReleaseWorkspaceSnapshots = R"sql(
UPDATE awc.snapshots SET state = 'RELEASED', released_at = now()
 WHERE workspace_id = $1 AND state <> 'RELEASED'
RETURNING id
)sql";

// --- Inventory: validation's side (prepared) ------------------------------

// $1 tenant. The first GC epoch that may delete an object from now on:
// the tenant's open epoch, else the one after the last; and the database
// clock. A walk takes them before it reads, so that its commit can tell an
// object GC deleted after the walk read it (kAddMissingObjects) from one
// that was never registered, and stamp what it read as verified no later
// than the read.
inline constexpr const char* kGcWatermark = R"sql(
SELECT coalesce(max(id), 0) + 1, clock_timestamp() FROM awc.gc_epochs
 WHERE tenant_id = $1 AND state NOT IN ('PLANNED', 'DELETING')
)sql";

// $1 tenant, $2 the GC watermark. A row when an epoch at or after it
// exists: only then can GC have taken something a walk read since.
inline constexpr const char* kEpochSince = R"sql(
SELECT 1 FROM awc.gc_epochs WHERE tenant_id = $1 AND id >= $2::bigint LIMIT 1
)sql";

// $1 tenant, $2 the GC watermark, $3 digests (text[]). The first of them an
// epoch since the watermark is deleting or has deleted.
inline constexpr const char* kDeletedSince = R"sql(
SELECT c.digest
  FROM awc.gc_epochs e
  JOIN awc.gc_candidates c ON c.epoch_id = e.id
 WHERE e.tenant_id = $1 AND e.id >= $2::bigint
   AND c.state IN ('DELETING', 'DELETED') AND c.digest = ANY($3::text[])
 LIMIT 1
)sql";

// $1 tenant, $2 digests (text[]), $3 sizes (bigint[]), $4 the GC watermark
// taken before the walk read them. Adds the inventory rows that are
// missing (existing rows are left as they are) and returns the first digest
// GC is deleting, or has deleted since the watermark, if any (the caller
// then rolls back): a row GC removed after the walk read the object is
// missing too, and a fresh row would claim an object that is gone. One
// probe per digest serves both: most rows are there already (the producer
// inserted them), and skipping them before the insert costs a third of
// what ON CONFLICT pays per conflicting row; ON CONFLICT stays for a row a
// producer inserts meanwhile. Only a missing row is looked up among the
// epochs' candidates, through the few epochs since the watermark.
inline constexpr const char* kAddMissingObjects = R"sql(
WITH u AS (
  SELECT d, s FROM unnest($2::text[], $3::bigint[]) AS u(d, s)),
ex AS (
  SELECT o.digest, o.state FROM awc.objects o JOIN u
      ON o.tenant_id = $1 AND o.digest = u.d),
missing AS (
  SELECT u.d, u.s FROM u WHERE NOT EXISTS (SELECT 1 FROM ex WHERE ex.digest = u.d)),
gone AS (
  SELECT m.d FROM missing m
   WHERE EXISTS (SELECT 1 FROM awc.gc_epochs e
                   JOIN awc.gc_candidates c ON c.epoch_id = e.id AND c.digest = m.d
                  WHERE e.tenant_id = $1 AND e.id >= $4::bigint
                    AND c.state IN ('DELETING', 'DELETED'))),
ins AS (
  INSERT INTO awc.objects (tenant_id, digest, size)
  SELECT $1, m.d, m.s FROM missing m
      ON CONFLICT DO NOTHING)
(SELECT digest FROM ex WHERE state = 'DELETING' LIMIT 1)
UNION ALL
(SELECT d FROM gone LIMIT 1)
)sql";

// $1 tenant, $2 digest. The object's state, its row locked against GC's
// mark (FOR SHARE) until the transaction ends: a repair writes the object
// back only while this holds it LIVE (docs/store.md, "Repair").
inline constexpr const char* kLockObjectRow = R"sql(
SELECT state FROM awc.objects WHERE tenant_id = $1 AND digest = $2 FOR SHARE
)sql";

// --- Audit (prepared) ------------------------------------------------------

// $1 tenant (NULL for none), $2 event, $3 subject, $4 data (JSON object).
inline constexpr const char* kRecordAudit = R"sql(
INSERT INTO awc.audit_events (tenant_id, event, subject, data)
VALUES ($1, $2, $3, $4::jsonb)
)sql";

// --- The producer side: awcctl import (unprepared) -------------------------

// $1 tenant.
inline constexpr const char* kEnsureTenant = R"sql(
INSERT INTO awc.tenants (id) VALUES ($1) ON CONFLICT DO NOTHING
)sql";

// $1 workspace id, $2 tenant. A row when the workspace is the tenant's.
inline constexpr const char* kWorkspaceOfTenant = R"sql(
SELECT 1 FROM awc.workspaces WHERE id = $1 AND tenant_id = $2
)sql";

// $1 tenant, $2 digests (text[]). (digest, state) of those the inventory
// holds.
inline constexpr const char* kInventoryStates = R"sql(
SELECT digest, state FROM awc.objects
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
)sql";

// $1 tenant, $2 manifest digests (text[]). Those whose whole subtree a
// producer may reuse by touching only them: LIVE, referenced, entries
// recorded (docs/data-model.md, "The inventory protocol").
inline constexpr const char* kReusableManifests = R"sql(
SELECT digest FROM awc.objects
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
   AND state = 'LIVE' AND refs > 0 AND manifest_entries
)sql";

// $1 tenant, $2 manifest digests (text[]): the tops of subtrees the
// producer reuses. Touches those still reusable (as kReusableManifests),
// locking their rows; returns the digests it touched.
inline constexpr const char* kTouchReusedTops = R"sql(
UPDATE awc.objects SET last_seen_at = now()
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
   AND state = 'LIVE' AND refs > 0 AND manifest_entries
RETURNING digest
)sql";

// $1 tenant, $2 digests (text[]). Locks the existing rows of those digests
// in digest order (the sort runs below the row locks), so that producers
// registering overlapping content take their locks in one order and do not
// deadlock one another.
inline constexpr const char* kLockObjectRows = R"sql(
SELECT digest FROM awc.objects
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
 ORDER BY digest
   FOR UPDATE
)sql";

// $1 tenant, $2 digests (text[]), $3 sizes (bigint[]): objects the
// producer uploaded itself. Inserts the missing objects LIVE and touches
// last_seen_at of the LIVE ones, locking their rows; returns the digests it
// inserted or touched (not the DELETING ones).
inline constexpr const char* kRegisterObjects = R"sql(
INSERT INTO awc.objects AS o (tenant_id, digest, size)
SELECT $1, u.d, u.s FROM unnest($2::text[], $3::bigint[]) AS u(d, s)
 ORDER BY u.d
    ON CONFLICT (tenant_id, digest) DO UPDATE SET last_seen_at = now()
 WHERE o.state = 'LIVE'
RETURNING o.digest
)sql";

// $1 tenant, $2 digests (text[]): objects the producer deduplicated
// instead of uploading. Touches last_seen_at of the LIVE ones, locking
// their rows; returns the digests it touched. A digest whose row GC has
// marked DELETING, or removed since the producer looked, is not returned:
// it may be gone from the store, and only an object the producer uploaded
// itself may get a fresh row.
inline constexpr const char* kTouchLiveObjects = R"sql(
UPDATE awc.objects SET last_seen_at = now()
 WHERE tenant_id = $1 AND digest = ANY($2::text[]) AND state = 'LIVE'
RETURNING digest
)sql";

// $1 tenant, $2 workspace id (NULL for none), $3 root digest. The new
// snapshot is VALIDATING (the column default); returns its id.
inline constexpr const char* kInsertSnapshot = R"sql(
INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest)
VALUES ($1, $2, $3)
RETURNING id
)sql";

// --- Counts for awcctl stats (unprepared) --------------------------------

// (state, count) of the snapshots, by state.
inline constexpr const char* kSnapshotStates = R"sql(
SELECT state, count(*) FROM awc.snapshots GROUP BY state ORDER BY state
)sql";

// (state, count) of the workspaces, by state.
inline constexpr const char* kWorkspaceStates = R"sql(
SELECT state, count(*) FROM awc.workspaces GROUP BY state ORDER BY state
)sql";

}  // namespace awc::catalog::sql

#endif  // AWC_CATALOG_CATALOG_SQL_H_
