-- compatibility: older builds run on it
-- What operators set per job kind besides a pause: its priority and its
-- concurrency limits.
--
-- Job priorities (docs/queue.md, "Priorities"): a job's priority is 0 (the
-- most urgent) to 9; a claim takes the most urgent ready job first, and of
-- one priority the oldest, as before. A producer may set it at enqueue;
-- a job enqueued without one gets its kind's, from awc.kind_settings
-- (operators change it with awcctl kinds priority), or 4 for a kind that
-- has no row there.
--
-- Concurrency limits (docs/queue.md, "Concurrency limits"): at most
-- host_limit jobs of the kind RUNNING under one AWC_WORKER_ID, at most
-- fleet_limit in all; NULL for no limit.
--
-- Older builds run on this schema: they enqueue without a priority, which
-- the trigger below fills in, and claim by run_at alone from the indexes
-- they know, which stay. They do not know the limits, and do not keep
-- them: a fleet keeps its limits once every host runs this release.
CREATE TABLE awc.kind_settings (
  kind       text PRIMARY KEY
             CONSTRAINT kind_settings_kind_at_most_128_bytes
             CHECK (octet_length(kind) BETWEEN 1 AND 128),
  priority   smallint NOT NULL DEFAULT 4
             CONSTRAINT kind_settings_priority_range
             CHECK (priority BETWEEN 0 AND 9),
  host_limit  integer CONSTRAINT kind_settings_host_limit_positive
              CHECK (host_limit >= 1),
  fleet_limit integer CONSTRAINT kind_settings_fleet_limit_positive
              CHECK (fleet_limit >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);

-- What someone waits for first; repairs of what a producer asked for next;
-- maintenance that may take hours under the read budget last.
INSERT INTO awc.kind_settings (kind, priority, updated_by) VALUES
  ('snapshot_validate', 2, 'migration 0023'),
  ('workspace_expire', 4, 'migration 0023'),
  ('snapshot_retain', 4, 'migration 0023'),
  ('snapshot_scrub', 7, 'migration 0023'),
  ('store_reconcile', 7, 'migration 0023'),
  ('gc_sweep', 7, 'migration 0023');

-- The default only serves the rows already there (a catalog entry, no
-- rewrite); it is dropped below, so that an insert that names no priority
-- reaches the trigger with NULL. NOT NULL is checked after the trigger.
ALTER TABLE awc.jobs ADD COLUMN priority smallint NOT NULL DEFAULT 4
  CONSTRAINT jobs_priority_range CHECK (priority BETWEEN 0 AND 9);
UPDATE awc.jobs j
   SET priority = s.priority
  FROM awc.kind_settings s
 WHERE s.kind = j.kind AND j.state IN ('PENDING', 'RUNNING')
   AND j.priority <> s.priority;
ALTER TABLE awc.jobs ALTER COLUMN priority DROP DEFAULT;

CREATE FUNCTION awc.jobs_default_priority() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.priority INTO NEW.priority
    FROM awc.kind_settings s WHERE s.kind = NEW.kind;
  IF NEW.priority IS NULL THEN
    NEW.priority := 4;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER jobs_default_priority
  BEFORE INSERT ON awc.jobs
  FOR EACH ROW WHEN (NEW.priority IS NULL)
  EXECUTE FUNCTION awc.jobs_default_priority();
-- Also for a session with session_replication_role = replica (a bulk
-- load with the other triggers off): without it, such an insert that
-- names no priority would break NOT NULL. A logical replication apply
-- brings the column's value, and the WHEN clause leaves it alone.
ALTER TABLE awc.jobs ENABLE ALWAYS TRIGGER jobs_default_priority;

-- The claim's walk: of each priority, from the claim cursor, by run_at
-- (src/queue/queue_sql.h, kClaim).
CREATE INDEX jobs_priority_claim_idx ON awc.jobs (priority, run_at, id)
  WHERE state = 'PENDING';
-- The claim while kinds are paused or left alone: of each priority the
-- kinds with PENDING jobs, and each one's oldest ready job.
CREATE INDEX jobs_pending_priority_kind_idx
  ON awc.jobs (priority, kind, run_at, id)
  WHERE state = 'PENDING';
