-- compatibility: older builds run on it
-- The error history of each job (docs/queue.md, "Error history"): every
-- attempt that failed, was retried, or was taken back from its worker
-- (lease expired, worker silent or crashed) keeps its error, when, the
-- worker that ran it and what became of the job; `last_error` keeps only the
-- last. At most the newest 20 rows per job are kept, and they go with the
-- job when it is pruned.
--
-- Written by a trigger, so that every statement that records such an
-- outcome, of this build or of an older one that knows nothing of the
-- table, keeps the history alike. It fires only for statements that set
-- last_error, so a claim and a completion, which do not, cost what they
-- did; its function runs only for a RUNNING job that goes back to PENDING
-- or to FAILED with an error and its attempt spent (a deferral gives its
-- attempt back and is not an error).
CREATE TABLE awc.job_errors (
  id          bigserial PRIMARY KEY,
  job_id      bigint NOT NULL REFERENCES awc.jobs (id) ON DELETE CASCADE,
  attempt     integer NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  worker      text,
  state       text NOT NULL CHECK (state IN ('PENDING', 'FAILED')),
  dead_reason text,
  error       text NOT NULL
);
CREATE INDEX job_errors_job_idx ON awc.job_errors (job_id, id);

CREATE FUNCTION awc.record_job_error() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO awc.job_errors (job_id, attempt, worker, state, dead_reason,
                              error)
  VALUES (NEW.id, NEW.attempts, OLD.locked_by, NEW.state, NEW.dead_reason,
          NEW.last_error);
  DELETE FROM awc.job_errors
   WHERE job_id = NEW.id
     AND id < (SELECT min(n.id)
                 FROM (SELECT id FROM awc.job_errors
                        WHERE job_id = NEW.id
                        ORDER BY id DESC LIMIT 20) n);
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_error_history
  AFTER UPDATE OF last_error ON awc.jobs
  FOR EACH ROW
  WHEN (OLD.state = 'RUNNING' AND NEW.state IN ('PENDING', 'FAILED')
        AND NEW.attempts >= OLD.attempts AND NEW.last_error IS NOT NULL)
  EXECUTE FUNCTION awc.record_job_error();
