-- awc.jobs_ready_micros (migration 0019) reads extract(epoch FROM
-- timestamptz), which PostgreSQL marks STABLE. Declared IMMUTABLE, the
-- function could not be inlined into the statements that call it, so the
-- claim (src/queue/queue_sql.h, kClaim) ran it as a separate SQL function,
-- parsed and planned anew in every claim. STABLE is what it is, and lets
-- the planner inline it.
ALTER FUNCTION awc.jobs_ready_micros(timestamptz) STABLE;
