-- The closure under a root is counted on every validation that trusts a
-- subtree (what the snapshot holds, held to the walk's limits), so its
-- cost is a validation's: a fraction of reading the closure, not a
-- multiple of it.
--
-- The walk down the manifests reads only the entries that name manifests,
-- from a partial index of them, instead of every entry of every manifest
-- (a tree of 500 directories of 200 files: 500 entries, not 100,000).
CREATE INDEX object_edges_manifest_idx ON awc.object_edges (tenant_id, parent)
  WHERE child_manifest;

-- The manifests under a root, the root included, each once with the
-- depth of the shortest path to it (the root: 0). Manifest digests cannot
-- form a cycle; the depth bound only stops a damaged table from looping.
CREATE FUNCTION awc.dag_manifests(p_tenant text, p_root bytea)
RETURNS TABLE (digest bytea, depth integer)
LANGUAGE sql STABLE AS $$
WITH RECURSIVE walk(d, depth) AS (
  SELECT p_root, 0
  UNION
  SELECT e.child, w.depth + 1
    FROM walk w
    JOIN awc.object_edges e ON e.tenant_id = p_tenant AND e.parent = w.d
   WHERE e.child_manifest AND w.depth < 1000
)
SELECT d, min(depth) FROM walk GROUP BY d
$$;

-- Same signature, rows and meaning as migration 0014's definition; each
-- object once by a grouping rather than DISTINCT ON's sort.
CREATE OR REPLACE FUNCTION awc.dag_closure(p_tenant text, p_root bytea)
RETURNS TABLE (digest bytea, size bigint, manifest_depth integer)
LANGUAGE sql STABLE AS $$
WITH manifests AS (
  SELECT * FROM awc.dag_manifests(p_tenant, p_root)
)
SELECT p_root,
       (SELECT o.size FROM awc.objects o
         WHERE o.tenant_id = p_tenant
           AND o.digest = 'sha256:' || encode(p_root, 'hex')),
       0
UNION ALL
SELECT c.child, c.size, m.depth
  FROM (SELECT e.child, max(e.child_size) AS size
          FROM manifests p
          JOIN awc.object_edges e ON e.tenant_id = p_tenant AND e.parent = p.digest
         WHERE e.child <> p_root
         GROUP BY e.child) c
  LEFT JOIN manifests m ON m.digest = c.child
$$;

-- (objects, bytes, deepest manifest) of awc.dag_closure's rows, without
-- joining each object to its depth.
CREATE FUNCTION awc.dag_closure_stats(p_tenant text, p_root bytea)
RETURNS TABLE (objects bigint, bytes bigint, max_depth integer)
LANGUAGE sql STABLE AS $$
WITH manifests AS (
  SELECT * FROM awc.dag_manifests(p_tenant, p_root)
), below AS (
  SELECT e.child, max(e.child_size) AS size
    FROM manifests p
    JOIN awc.object_edges e ON e.tenant_id = p_tenant AND e.parent = p.digest
   WHERE e.child <> p_root
   GROUP BY e.child
)
SELECT 1 + count(*),
       coalesce((SELECT o.size FROM awc.objects o
                  WHERE o.tenant_id = p_tenant
                    AND o.digest = 'sha256:' || encode(p_root, 'hex')), 0)
         + coalesce(sum(b.size), 0),
       (SELECT max(depth) FROM manifests)
  FROM below b
$$;
