-- A job whose worker dies running it is taken back as soon as a live
-- worker of the host sees the death (src/queue/queue_sql.h,
-- kReleaseOrphan), not when its lease ends; one that has killed its worker
-- max_attempts times is dead-lettered as worker_crashed. NOT VALID, as in
-- migration 0005: the rows already there are checked by the constraint
-- they were written under, and a large history is not scanned under the
-- lock.
ALTER TABLE awc.jobs DROP CONSTRAINT jobs_dead_reason_check;
ALTER TABLE awc.jobs ADD CONSTRAINT jobs_dead_reason_check
  CHECK (dead_reason IN ('malformed_payload', 'unknown_kind',
                         'subject_missing', 'attempts_exhausted',
                         'handler_failed', 'worker_crashed')) NOT VALID;
