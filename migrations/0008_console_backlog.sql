-- What the read-only console (awcctl serve) reads by index so that its
-- overview and dead letters cost the same with a backlog of queued jobs as
-- without one (docs/ARCHITECTURE.md, "Console"). Both indexes are partial:
-- a job enters the first while PENDING and the second once dead.

-- PENDING jobs of a kind by when they became ready: run_at, never before
-- the row was inserted (AWC_QUEUE_READY_SINCE in src/queue/queue_sql.h,
-- whose text the queries must repeat for the index to serve them). The
-- overview counts ready and scheduled jobs up to a cap from it and finds
-- the oldest ready one with one probe; the metrics' queue sample reads it
-- too. run_at and created_at ride along, so that none of these visits the
-- table.
CREATE INDEX jobs_pending_ready_idx
  ON awc.jobs (kind, (greatest(run_at, created_at)))
  INCLUDE (run_at, created_at)
  WHERE state = 'PENDING';

-- Dead letters, newest first: the unfiltered listing (awcctl dlq list, the
-- console's dead letters) walks them alone, not the jobs queued since the
-- last one died.
CREATE INDEX jobs_dead_id_idx ON awc.jobs (id) WHERE state = 'FAILED';
