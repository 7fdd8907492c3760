-- Workers claim from a cursor (docs/queue.md, "The claim cursor"): each
-- starts its walk of jobs_claim_idx after the last job it claimed instead of
-- at the index's start, where a pinned MVCC horizon leaves every claimed
-- job's dead entry. A job that becomes ready behind a cursor says so on
-- awc_jobs: the payload is the smallest run_at that became ready, in
-- microseconds since the Unix epoch, and a worker whose cursor is past it
-- moves back to it. An empty payload (awc.jobs_notify(), still used by
-- awc.paused_kinds) means "anywhere": workers start again at the index's
-- start. -infinity and other values a bigint cannot hold are sent empty.
CREATE FUNCTION awc.jobs_ready_micros(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN isfinite(t) THEN
           (floor(extract(epoch FROM t) * 1000000))::bigint::text
         ELSE '' END
$$;

-- One notification per inserting statement, as before, now saying where.
CREATE FUNCTION awc.jobs_notify_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  first timestamptz;
BEGIN
  SELECT min(run_at) INTO first FROM inserted WHERE state = 'PENDING';
  IF first IS NOT NULL THEN
    PERFORM pg_notify('awc_jobs', awc.jobs_ready_micros(first));
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER jobs_notify ON awc.jobs;
CREATE TRIGGER jobs_notify
  AFTER INSERT ON awc.jobs
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION awc.jobs_notify_inserted();

-- A job that goes back to PENDING (a retry, a deferral, a reclaim, an
-- operator's retry, a producer's update) may land behind every cursor.
-- Row-level with a WHEN clause: the claims and the recordings, which never
-- leave a row PENDING, do not call the function at all.
CREATE FUNCTION awc.jobs_notify_requeued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('awc_jobs', awc.jobs_ready_micros(NEW.run_at));
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_notify_requeued
  AFTER UPDATE ON awc.jobs
  FOR EACH ROW WHEN (NEW.state = 'PENDING')
  EXECUTE FUNCTION awc.jobs_notify_requeued();
