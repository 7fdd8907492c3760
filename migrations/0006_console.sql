-- What the read-only console (awcctl serve) reads by index, so that each of
-- its pages costs the rows it shows, not the size of the history
-- (docs/ARCHITECTURE.md, "Console"). awcctl stats and dlq read through
-- jobs_dead_reason_idx and gc_epochs_tenant_idx too.

-- Jobs by kind and state, newest first: the console walks the kinds with
-- one index probe each, counts each open state of a kind, and pages a
-- (kind, state) pair by id, all without visiting the table: run_at rides
-- along for the ready/scheduled split and the oldest ready job, and
-- dead_reason for the dead letters' filter.
CREATE INDEX jobs_kind_state_idx ON awc.jobs (kind, state, id)
  INCLUDE (run_at, dead_reason);

-- Dead letters by reason, newest first (a job enters it only when it
-- fails).
CREATE INDEX jobs_dead_reason_idx ON awc.jobs (dead_reason, id)
  WHERE state = 'FAILED';

-- The audit trail by event, by subject and by tenant, newest first.
CREATE INDEX audit_events_event_id_idx ON awc.audit_events (event, id);
CREATE INDEX audit_events_subject_id_idx ON awc.audit_events (subject, id);
CREATE INDEX audit_events_tenant_id_idx ON awc.audit_events (tenant_id, id);

-- Snapshots by state, newest first: the listing's state filter and the
-- overview's counts per state.
CREATE INDEX snapshots_state_idx ON awc.snapshots (state, id);

-- GC epochs of a tenant, newest first: its last epoch and its history.
CREATE INDEX gc_epochs_tenant_idx ON awc.gc_epochs (tenant_id, id);
