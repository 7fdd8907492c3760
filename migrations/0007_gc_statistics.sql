-- Statistics the GC plan needs to choose its scans (docs/ARCHITECTURE.md,
-- "GC at scale"). objects_gc_idx is a partial index on an expression, and
-- the planner keeps no statistics for the expression of a partial index:
-- without these it guesses that a third of a tenant's objects are past the
-- grace. At ten million objects, nearly all of them old, that guess made
-- the plan walk the index and visit the table in index order (random
-- reads) where one sequential scan reads it in a fraction of the time.
CREATE STATISTICS awc.objects_touched_stats
  ON (greatest(created_at, last_seen_at)) FROM awc.objects;
ANALYZE awc.objects;
