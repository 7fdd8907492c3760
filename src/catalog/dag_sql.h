// Every SQL statement on the content DAG: the recorded manifest entries
// (awc.object_edges) and the reference counts on the inventory
// (awc.objects.refs, manifest_entries, damaged_at), in one place. What the
// columns mean and why the rules keep GC safe: docs/store.md, "Shared
// content", and docs/gc.md, "GC safety".
//
// Digests travel as text ("sha256:<hex>") in text[] parameters and are
// stored as 32 raw bytes in awc.object_edges. Executed with
// PgConn::ExecCached (prepared once per connection).
#ifndef AWC_CATALOG_DAG_SQL_H_
#define AWC_CATALOG_DAG_SQL_H_

// "Row `o` of the inventory is held, for tenant `t`, by a referenced
// manifest whose file entries are not counted yet": through a recorded
// entry that names no manifest (migration 0015; docs/store.md, "Shared
// content"). Such a row is live though its refs may be 0. Macros, so that
// GC's liveness (gc/gc_sql.h) and the walk's trust share one definition:
// AWC_DAG_UNCOUNTED_HOLDER is the probe's SELECT (one row per holder),
// AWC_DAG_HELD_UNCOUNTED the condition. `IS NOT TRUE` (the column is NOT
// NULL) rather than `NOT`: with `NOT` the planner may scan the whole
// partial index objects_uncounted_idx for every row probed instead of
// finding the parent by its key.
// clang-format off
#define AWC_DAG_UNCOUNTED_HOLDER(o, t)                                       \
  "SELECT 1 FROM awc.object_edges he JOIN awc.objects hp ON "                \
  "hp.tenant_id = he.tenant_id AND hp.digest = 'sha256:' || "                \
  "encode(he.parent, 'hex') WHERE he.tenant_id = " t " AND he.child = "      \
  "decode(substr(" o ".digest, 8), 'hex') AND NOT he.child_manifest AND "    \
  "hp.refs > 0 AND hp.manifest_entries AND "                                 \
  "hp.entries_counted IS NOT TRUE"
#define AWC_DAG_HELD_UNCOUNTED(o, t)                                         \
  "EXISTS (" AWC_DAG_UNCOUNTED_HOLDER(o, t) ")"
// clang-format on

namespace awc::catalog::sql {

// $1 tenant. Serialises, per tenant, every change of references, the
// recording of damage and GC's marking of a batch, until the transaction
// ends. ('awcd' and the tenant's hash: the two-key space, apart from the
// one-key lock of the migrations.)
inline constexpr const char* kLockTenantDag = R"sql(
SELECT pg_advisory_xact_lock(1635214180, hashtext($1))
)sql";

// Run right after kLockTenantDag, for the rest of the transaction:
//  - a row lock is waited for at most half of deadlock_timeout. The rows a
//    DAG change updates are also locked by producers registering a
//    snapshot (and, through its foreign key, the snapshot's workspace), in
//    an order of their own; a wait that would end in a deadlock ends here
//    first, so the worker's transaction is the one that gives way (a
//    transient error: the job retries), never the producer's;
//  - no sequential scan unless there is no other way. Every statement
//    under the DAG lock reaches its rows by key (a closure's manifests
//    from its root, an object's parents from it, a batch's rows by
//    digest); right after a large first import, before the tables are
//    analysed, their statistics still say they are small and the planner
//    would scan them whole (a later validation's count of the closure took
//    3.4 s instead of 0.2 s).
inline constexpr const char* kBoundRowLockWaits = R"sql(
SELECT set_config('lock_timeout',
  greatest(1, (extract(epoch FROM current_setting('deadlock_timeout')::interval)
               * 500)::int)::text, true),
       set_config('enable_seqscan', 'off', true)
)sql";

// $1 tenant, $2 digests (text[]). What the catalog says of the objects a
// walk is about to read, in one index probe each: a row for each digest
// that has no inventory row, whose row is not LIVE (GC is deleting it), or
// that a walk may trust — LIVE, held and not damaged: (digest, has a row,
// size, manifest_entries, referenced, LIVE). Only a referenced manifest
// vouches for its entries (the caller checks): a manifest that is merely
// held is trusted as a file. Each digest's row, and its holder, are probed
// through a LATERAL subquery with a LIMIT, so that the plan is one index
// probe per digest whatever the tables' statistics say (right after a
// first import they are stale, and a join could read the whole tenant);
// the digests of a new tree (rows present, no references, no holder) cost
// that probe and return nothing.
inline constexpr const char* kProbeObjects = R"sql(
SELECT u.d, o.digest IS NOT NULL, o.size, o.manifest_entries, o.refs > 0,
       o.state = 'LIVE'
  FROM unnest($2::text[]) AS u(d)
  LEFT JOIN LATERAL (
       SELECT c.digest, c.size, c.manifest_entries, c.refs, c.state,
              c.damaged_at
         FROM awc.objects c
        WHERE c.tenant_id = $1 AND c.digest = u.d
        LIMIT 1) o ON true
  LEFT JOIN LATERAL ()sql" AWC_DAG_UNCOUNTED_HOLDER("o", "$1") R"sql(
                       AND o.refs = 0 AND o.state = 'LIVE'
                       AND o.damaged_at IS NULL LIMIT 1) h(held) ON true
 WHERE o.digest IS NULL OR o.state <> 'LIVE'
    OR (o.damaged_at IS NULL AND (o.refs > 0 OR h.held IS NOT NULL))
)sql";

// $1 tenant, $2 parents, $3 children (hex text[]), $4 declared sizes
// (bigint[]), $5 declared kinds (boolean[], true = manifest). Each (parent,
// child) once: the caller merges a digest a manifest names twice (as a
// manifest if either entry says so), and gives only manifests whose
// entries it has just marked recorded, after kDropStaleEdges, under the
// DAG lock: no pair can be there already, so no conflict is looked for.
inline constexpr const char* kInsertEdges = R"sql(
INSERT INTO awc.object_edges
       (tenant_id, parent, child, child_size, child_manifest)
SELECT $1, decode(u.p, 'hex'), decode(u.c, 'hex'), u.s, u.m
  FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[])
       AS u(p, c, s, m)
)sql";

// $1 tenant, $2 manifests (text[]) about to be recorded. Entries left from
// an earlier recording of theirs (a manifest loses its mark when a count
// takes it for a file; docs/store.md, "Shared content") go first: a
// manifest's entries are a function of its digest, so the new ones are
// the same. Usually there are none; each manifest costs a probe of the
// primary key's prefix.
inline constexpr const char* kDropStaleEdges = R"sql(
DELETE FROM awc.object_edges
 WHERE tenant_id = $1
   AND parent = ANY (ARRAY(SELECT decode(substr(x, 8), 'hex')
                             FROM unnest($2::text[]) AS x))
)sql";

// $1 tenant, $2 manifests (text[]) whose entries are now recorded. Returns
// the referenced ones among those that were not marked yet: their entries
// that name manifests get the references a referenced manifest gives; its
// file entries are held, uncounted.
inline constexpr const char* kMarkManifestEntries = R"sql(
UPDATE awc.objects SET manifest_entries = true, entries_counted = false
 WHERE tenant_id = $1 AND digest = ANY($2::text[]) AND NOT manifest_entries
RETURNING digest, refs > 0
)sql";

// $1 tenant, $2 digests (text[], a digest once per reference), $3 the
// change per reference (+1 or -1), $4 per digest: reached through an entry
// that names a manifest (boolean[]). Returns per row found: digest, state,
// damaged, manifest_entries, refs before, refs after, reached as manifest,
// entries_counted (after). An object that goes from 0 to 1 reference was
// read by the validation that gives it (docs/store.md, "Shared content"):
// verified_at is its read, $5 (the database clock before the walk read
// anything; NULL: now()); its file entries start uncounted.
inline constexpr const char* kAdjustRefs = R"sql(
WITH d AS (
  SELECT u.digest, count(*) AS n, bool_or(u.m) AS m
    FROM unnest($2::text[], $4::boolean[]) AS u(digest, m)
   GROUP BY u.digest)
UPDATE awc.objects o
   SET refs = o.refs + $3::bigint * d.n,
       verified_at = CASE WHEN o.refs = 0 AND $3::bigint > 0
                          THEN least(now(), $5::timestamptz)
                          ELSE o.verified_at END,
       entries_counted = CASE WHEN o.refs = 0 AND $3::bigint > 0 THEN false
                              ELSE o.entries_counted END
  FROM d
 WHERE o.tenant_id = $1 AND o.digest = d.digest
RETURNING o.digest, o.state, o.damaged_at IS NOT NULL, o.manifest_entries,
          o.refs - $3::bigint * d.n, o.refs, d.m, o.entries_counted
)sql";

// $1 tenant, $2 manifests (text[]), $3 which entries (boolean: true, those
// naming a manifest; false, the file entries). Their recorded entries:
// (child digest, names a manifest), one row per entry.
inline constexpr const char* kEntriesOf = R"sql(
SELECT 'sha256:' || encode(e.child, 'hex'), e.child_manifest
  FROM awc.object_edges e
 WHERE e.tenant_id = $1 AND e.child_manifest = $3::boolean
   AND e.parent = ANY (SELECT decode(substr(x, 8), 'hex')
                         FROM unnest($2::text[]) AS x)
)sql";

// $1 tenant, $2 how many. Referenced manifests whose file entries owe
// their counts, locked, at most $2 of them.
inline constexpr const char* kTakeUncounted = R"sql(
SELECT digest FROM awc.objects
 WHERE tenant_id = $1 AND refs > 0 AND manifest_entries
   AND NOT entries_counted
 LIMIT $2::int
   FOR UPDATE
)sql";

// $1 tenant, $2 manifests (text[]) taken by kTakeUncounted: each gives its
// file entries their reference. The count only turns a hold into a
// reference, so nothing cascades: a row held was vouched for when it
// became held. A manifest that gains its first reference here (named as a
// file, recorded by some other walk) is a file to the references: it
// loses its recorded mark, since its own entries have none from it, and a
// walk that reads it as a manifest records it again (kMarkManifestEntries).
inline constexpr const char* kCountFileEntries = R"sql(
WITH d AS (
  SELECT e.child, count(*) AS n FROM awc.object_edges e
   WHERE e.tenant_id = $1 AND NOT e.child_manifest
     AND e.parent = ANY (SELECT decode(substr(x, 8), 'hex')
                           FROM unnest($2::text[]) AS x)
   GROUP BY e.child)
UPDATE awc.objects o
   SET refs = o.refs + d.n,
       manifest_entries = o.manifest_entries AND o.refs > 0
  FROM d
 WHERE o.tenant_id = $1 AND o.digest = 'sha256:' || encode(d.child, 'hex')
)sql";

// $1 tenant, $2 manifests (text[]) whose file entries are now counted.
inline constexpr const char* kMarkEntriesCounted = R"sql(
UPDATE awc.objects SET entries_counted = true
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
)sql";

// $1 tenant, $2 root digest. (objects, bytes, deepest manifest) of the
// closure the recorded entries give.
inline constexpr const char* kDagClosureStats = R"sql(
SELECT objects, bytes, max_depth
  FROM awc.dag_closure_stats($1, decode(substr($2, 8), 'hex'))
)sql";

// $1 tenant, $2 root digest, $3 seconds, $4 a time (NULL: none). The
// closure from the recorded entries, in digest order: (digest, size,
// fresh: not damaged, and verified less than $3 seconds ago or at or after
// $4).
inline constexpr const char* kDagClosure = R"sql(
SELECT 'sha256:' || encode(c.digest, 'hex'), c.size,
       coalesce(o.damaged_at IS NULL AND
                (o.verified_at > now() - make_interval(secs => $3::float8)
                 OR o.verified_at >= $4::timestamptz),
                false)
  FROM awc.dag_closure($1, decode(substr($2, 8), 'hex')) c
  LEFT JOIN awc.objects o
    ON o.tenant_id = $1 AND o.digest = 'sha256:' || encode(c.digest, 'hex')
 ORDER BY c.digest
)sql";

// $1 tenant, $2 digests (text[]) a scrub has just read and found good, $3
// the database clock before it read them: verified then (a stamp is never
// later than the read it stands for, nor moved back), and no longer
// damaged unless marked damaged after that (by a scrub that read it bad
// meanwhile). A damaged manifest is read in full, so what is under it was
// read or trusted again.
inline constexpr const char* kMarkVerified = R"sql(
UPDATE awc.objects
   SET verified_at = greatest(verified_at, $3::timestamptz),
       damaged_at = CASE WHEN damaged_at < $3::timestamptz THEN NULL
                         ELSE damaged_at END
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
)sql";

// $1 tenant, $2 digests (text[]) a validation read, $3 the database clock
// before the walk read anything. Those marked damaged before that are no
// longer (as kMarkVerified, touching only them).
inline constexpr const char* kClearDamaged = R"sql(
UPDATE awc.objects
   SET verified_at = greatest(verified_at, $3::timestamptz), damaged_at = NULL
 WHERE tenant_id = $1 AND digest = ANY($2::text[])
   AND damaged_at < $3::timestamptz
)sql";

// The database clock, to stamp what is read after it.
inline constexpr const char* kClock = R"sql(
SELECT clock_timestamp()
)sql";

// $1 tenant, $2 bad digests (text[]). Marks each bad object and every
// manifest above it (through the recorded entries) damaged; returns the
// READY snapshots that reach one of them, with the bad digests each
// reaches: (snapshot id, bad digest), one row per pair, by id. A snapshot
// reaches a bad object through its root and the recorded entries, or
// through its closure rows from before the DAG (awc.legacy_closures).
inline constexpr const char* kMarkDamaged = R"sql(
WITH RECURSIVE up(d, bad) AS (
  SELECT decode(substr(x, 8), 'hex'), x FROM unnest($2::text[]) AS x
  UNION
  SELECT e.parent, up.bad
    FROM up JOIN awc.object_edges e ON e.tenant_id = $1 AND e.child = up.d
), marked AS (
  UPDATE awc.objects o SET damaged_at = now()
   WHERE o.tenant_id = $1 AND o.damaged_at IS NULL
     AND o.digest IN (SELECT 'sha256:' || encode(d, 'hex') FROM up)
  RETURNING 1)  -- runs to completion though nothing reads it
SELECT s.id, up.bad
  FROM up
  JOIN awc.snapshots s
    ON s.tenant_id = $1 AND s.state = 'READY'
   AND s.root_digest = 'sha256:' || encode(up.d, 'hex')
UNION
SELECT s.id, so.digest
  FROM awc.legacy_closures so
  JOIN awc.snapshots s ON s.id = so.snapshot_id
 WHERE s.tenant_id = $1 AND s.state = 'READY'
   AND so.digest = ANY($2::text[])
 ORDER BY 1, 2
)sql";

// $1 tenant. Snapshots that still hold a reference though their state no
// longer keeps their objects (released by someone else than the worker):
// references dropped, returns their roots.
inline constexpr const char* kTakeStrayRootRefs = R"sql(
UPDATE awc.snapshots SET holds_refs = false
 WHERE tenant_id = $1 AND holds_refs AND state NOT IN ('READY', 'DEGRADED')
RETURNING root_digest
)sql";

// $1 tenant. The roots of deleted snapshots that held a reference
// (migration 0014's trigger): rows removed, roots returned.
inline constexpr const char* kTakeDroppedRoots = R"sql(
DELETE FROM awc.dropped_roots WHERE tenant_id = $1 RETURNING root_digest
)sql";

}  // namespace awc::catalog::sql

#endif  // AWC_CATALOG_DAG_SQL_H_
