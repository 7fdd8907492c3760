-- Fewer index entries per job (docs/ARCHITECTURE.md, "Console", and
-- bench/README.md, "Queue"). A job's claim and each of its outcomes move
-- it to a new row version, which enters every index of awc.jobs whose
-- predicate it meets. jobs_kind_state_idx (migration 0006) was a full
-- index, so every job paid three entries in it: queued, claimed, finished.
-- The console reads it only for finished jobs: PENDING ones come from
-- jobs_pending_ready_idx, RUNNING ones from jobs_lease_idx and dead letters
-- from jobs_dead_letter_idx. It now holds the COMPLETED and CANCELLED jobs,
-- one entry per job.
DROP INDEX awc.jobs_kind_state_idx;
CREATE INDEX jobs_finished_kind_idx ON awc.jobs (kind, state, id)
  WHERE state IN ('COMPLETED', 'CANCELLED');

-- PENDING jobs of a kind, as migration 0008 made it, with the id riding
-- along too: the console's listing of PENDING jobs takes their ids from
-- it without visiting the table.
DROP INDEX awc.jobs_pending_ready_idx;
CREATE INDEX jobs_pending_ready_idx
  ON awc.jobs (kind, (greatest(run_at, created_at)))
  INCLUDE (run_at, created_at, id)
  WHERE state = 'PENDING';
