-- What the read-only console (awcctl serve) reads by index, so that each of
-- its pages costs the rows it shows, not the size of the history
-- (docs/ARCHITECTURE.md, "Console").

-- Jobs by kind and state, newest first: the console walks the kinds with
-- one index probe each, counts each open state of a kind, and pages a
-- (kind, state) pair by id. run_at rides along for the ready/scheduled
-- split and the oldest ready job without visiting the table.
CREATE INDEX jobs_kind_state_idx ON awc.jobs (kind, state, id) INCLUDE (run_at);
