-- Closures as a DAG (docs/store.md, "Shared content"; docs/gc.md, "GC
-- safety"). A snapshot's closure was one row per object per snapshot, so
-- snapshots that share all but a few objects paid for every object each
-- time. From here on validation records each manifest's entries once per
-- tenant (awc.object_edges) and keeps on each inventory row the number of
-- live references to it (awc.objects.refs): from the root of a READY or
-- DEGRADED snapshot, or from a manifest that is itself referenced. A
-- validation trusts a subtree whose top is referenced, and GC plans from
-- the unreferenced rows.

-- refs: live references (above). manifest_entries: a manifest whose
-- entries are recorded in awc.object_edges (its references count only
-- then). verified_at: when validation last read the object and found its
-- digest and size. damaged_at: when a scrub found the object, or an object
-- under it, bad; a damaged object is never trusted.
ALTER TABLE awc.objects
  ADD COLUMN refs bigint NOT NULL DEFAULT 0
      CONSTRAINT objects_refs_not_negative CHECK (refs >= 0),
  ADD COLUMN manifest_entries boolean NOT NULL DEFAULT false,
  ADD COLUMN verified_at timestamptz,
  ADD COLUMN damaged_at timestamptz;

-- The few damaged rows: a validation takes the damage off what it read
-- good again without probing every object it read.
CREATE INDEX objects_damaged_idx ON awc.objects (tenant_id, digest)
  WHERE damaged_at IS NOT NULL;

-- GC plans from the unreferenced LIVE rows only.
DROP INDEX awc.objects_gc_idx;
CREATE INDEX objects_gc_idx ON awc.objects
  (tenant_id, (greatest(created_at, last_seen_at)))
  WHERE state = 'LIVE' AND refs = 0;

-- The entries of each validated manifest, once per tenant, digests as 32
-- raw bytes. child_size and child_manifest are what the entry declares
-- (validation checked both).
CREATE TABLE awc.object_edges (
  tenant_id      text NOT NULL,
  parent         bytea NOT NULL CHECK (octet_length(parent) = 32),
  child          bytea NOT NULL CHECK (octet_length(child) = 32),
  child_size     bigint NOT NULL,
  child_manifest boolean NOT NULL,
  PRIMARY KEY (tenant_id, parent, child)
);
-- Upward walks: which manifests name this object (scrub's damage marking,
-- GC's canary).
CREATE INDEX object_edges_child_idx ON awc.object_edges (tenant_id, child);

-- holds_refs: the snapshot's root holds one reference (set when it becomes
-- READY through validation, cleared when it is released).
ALTER TABLE awc.snapshots
  ADD COLUMN holds_refs boolean NOT NULL DEFAULT false;

-- The closure rows written before this migration stay where they are and
-- keep protecting their snapshots (GC still honours them) until a clean
-- scrub of the snapshot records it as a DAG and removes them.
ALTER TABLE awc.snapshot_objects RENAME TO legacy_closures;
ALTER INDEX awc.snapshot_objects_pkey RENAME TO legacy_closures_pkey;
ALTER INDEX awc.snapshot_objects_digest_idx
  RENAME TO legacy_closures_digest_idx;

-- A snapshot released or deleted by someone else than the worker while its
-- root still holds a reference: the next GC epoch of its tenant drops the
-- reference (so the objects do not stay live for ever).
CREATE TABLE awc.dropped_roots (
  tenant_id   text NOT NULL,
  root_digest text NOT NULL,
  dropped_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dropped_roots_tenant_idx ON awc.dropped_roots (tenant_id);

CREATE FUNCTION awc.snapshots_dropped() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO awc.dropped_roots (tenant_id, root_digest)
  VALUES (OLD.tenant_id, OLD.root_digest);
  RETURN OLD;
END $$;
CREATE TRIGGER snapshots_dropped AFTER DELETE ON awc.snapshots
  FOR EACH ROW WHEN (OLD.holds_refs) EXECUTE FUNCTION awc.snapshots_dropped();

-- The closure under a root from the recorded edges: each object once, the
-- root first, with its size and, for manifests, the depth of the shortest
-- path to it (NULL for blobs). Manifest digests cannot form a cycle; the
-- depth bound only stops a damaged table from looping.
CREATE FUNCTION awc.dag_closure(p_tenant text, p_root bytea)
RETURNS TABLE (digest bytea, size bigint, manifest_depth integer)
LANGUAGE sql STABLE AS $$
WITH RECURSIVE walk(d, depth) AS (
  SELECT p_root, 0
  UNION
  SELECT e.child, w.depth + 1
    FROM walk w
    JOIN awc.object_edges e ON e.tenant_id = p_tenant AND e.parent = w.d
   WHERE e.child_manifest AND w.depth < 1000
), manifests AS (
  SELECT d, min(depth) AS depth FROM walk GROUP BY d
)
SELECT p_root,
       (SELECT o.size FROM awc.objects o
         WHERE o.tenant_id = p_tenant
           AND o.digest = 'sha256:' || encode(p_root, 'hex')),
       0
UNION ALL
SELECT c.child, c.child_size, m.depth
  FROM (SELECT DISTINCT ON (e.child) e.child, e.child_size
          FROM manifests p
          JOIN awc.object_edges e ON e.tenant_id = p_tenant AND e.parent = p.d
         WHERE e.child <> p_root
         ORDER BY e.child) c
  LEFT JOIN manifests m ON m.d = c.child
$$;

-- awc.snapshot_objects keeps its meaning for readers: a snapshot's closure,
-- one row per object, for the snapshots that hold their objects (READY and
-- DEGRADED) and for those with rows from before this migration. Rows
-- inserted into it go to awc.legacy_closures, as before this migration.
CREATE VIEW awc.snapshot_objects AS
SELECT snapshot_id, digest FROM awc.legacy_closures
UNION ALL
SELECT s.id, 'sha256:' || encode(c.digest, 'hex')
  FROM awc.snapshots s
 CROSS JOIN LATERAL awc.dag_closure(s.tenant_id,
                                    decode(substr(s.root_digest, 8), 'hex')) c
 WHERE s.holds_refs;

CREATE FUNCTION awc.snapshot_objects_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO awc.legacy_closures (snapshot_id, digest)
    VALUES (NEW.snapshot_id, NEW.digest) ON CONFLICT DO NOTHING;
    RETURN NEW;
  END IF;
  DELETE FROM awc.legacy_closures
   WHERE snapshot_id = OLD.snapshot_id AND digest = OLD.digest;
  RETURN OLD;
END $$;
CREATE TRIGGER snapshot_objects_write
  INSTEAD OF INSERT OR DELETE ON awc.snapshot_objects
  FOR EACH ROW EXECUTE FUNCTION awc.snapshot_objects_write();
