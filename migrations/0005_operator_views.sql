-- What operators look at: why a dead letter died, and which workers are
-- alive (awcctl jobs show, dlq, workers, health --fleet).

-- Why a job was dead-lettered; set by the worker when it leaves a job
-- FAILED, NULL otherwise. NOT VALID: every existing row is NULL, which the
-- check accepts, and a large history table is not scanned under the lock;
-- new and updated rows are checked all the same.
ALTER TABLE awc.jobs ADD COLUMN dead_reason text;
ALTER TABLE awc.jobs ADD CONSTRAINT jobs_dead_reason_check
  CHECK (dead_reason IN ('malformed_payload', 'unknown_kind',
                         'subject_missing', 'attempts_exhausted',
                         'handler_failed')) NOT VALID;

-- The dead letters of earlier versions, classified from the error they
-- recorded (the texts the worker wrote for each case).
UPDATE awc.jobs
   SET dead_reason = CASE
         WHEN last_error = 'unknown job kind' THEN 'unknown_kind'
         WHEN last_error LIKE 'malformed payload:%' THEN 'malformed_payload'
         WHEN last_error LIKE '% does not exist' THEN 'subject_missing'
         WHEN attempts >= max_attempts THEN 'attempts_exhausted'
         ELSE 'handler_failed' END
 WHERE state = 'FAILED';

-- One row per worker process, written by the worker itself: when its state
-- changes and every few seconds while it lives (heartbeat_at). Rows of
-- workers gone for long are removed by the workers that remain.
CREATE TABLE awc.workers (
  host         text NOT NULL,
  pid          integer NOT NULL,
  worker_id    text NOT NULL,     -- AWC_WORKER_ID-<slot>
  slot         integer NOT NULL,  -- 1-based, as in the process title
  started_at   timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  state        text NOT NULL
               CHECK (state IN ('idle', 'busy', 'stopped')),
  job_id       bigint,            -- the job in flight while busy
  job_kind     text,
  PRIMARY KEY (host, pid)
);
