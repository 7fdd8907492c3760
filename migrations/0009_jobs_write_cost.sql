-- Fewer index entries per job (docs/ARCHITECTURE.md, "Console", and
-- bench/README.md, "Queue"). A job's claim and each of its outcomes move
-- it to a new row version, which enters every index of awc.jobs whose
-- predicate it meets. jobs_kind_state_idx (migration 0006) was a full
-- index, so every job paid three entries in it: queued, claimed, finished.
-- The console now reads each state of a kind through a partial index that
-- holds that state alone, ordered by id, and a job enters each of these
-- once: PENDING jobs when queued, finished ones when they finish, dead
-- letters when they die. RUNNING jobs, at most one per busy worker, come
-- from jobs_lease_idx.
DROP INDEX awc.jobs_kind_state_idx;
CREATE INDEX jobs_finished_kind_idx ON awc.jobs (kind, state, id)
  WHERE state IN ('COMPLETED', 'CANCELLED');
CREATE INDEX jobs_pending_kind_idx ON awc.jobs (kind, id)
  WHERE state = 'PENDING';

-- Dead letters of a kind, as migration 0001 made it, with the reason
-- riding along: the console filters a kind's dead letters by reason
-- without visiting the table.
DROP INDEX awc.jobs_dead_letter_idx;
CREATE INDEX jobs_dead_letter_idx ON awc.jobs (kind, id) INCLUDE (dead_reason)
  WHERE state = 'FAILED';
