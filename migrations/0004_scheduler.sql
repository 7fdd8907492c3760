-- The scheduler (docs/ARCHITECTURE.md, "Scheduler"): a leader lease, the
-- schedules as data, job deduplication, and the indexes its planners and
-- the pruning use.

-- Named TTL leases; the row 'scheduler' elects the one scheduler of every
-- tree on this database that fires schedules. A takeover (insert, or an
-- update of an expired row) takes a new token from the sequence, so tokens
-- only grow and are never reused, even if a row is deleted.
CREATE TABLE awc.leader_leases (
  name        text PRIMARY KEY,
  holder      text NOT NULL,
  token       bigint NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now(),
  renewed_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE SEQUENCE awc.leader_lease_token_seq;

-- Periodic schedules. Built-in ones (gc, expire, retain, scrub, validate,
-- prune) are created by the scheduler and planned by it; operator ones
-- enqueue one job of `kind` with `payload` per firing. spec is
-- `@every <d>h<d>m<d>s` (each part optional, in that order), `@hourly`,
-- `@daily` or `@weekly`, on a grid of UTC times.
CREATE TABLE awc.schedules (
  name        text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
  spec        text NOT NULL
              CHECK (spec ~ '^(@hourly|@daily|@weekly|@every ([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)$'
                     AND spec <> '@every '),
  kind        text CHECK (kind <> ''),
  payload     jsonb NOT NULL DEFAULT '{}'::jsonb,
  builtin     boolean NOT NULL DEFAULT false,
  paused      boolean NOT NULL DEFAULT false,
  next_run_at timestamptz NOT NULL DEFAULT now(),
  last_run_at timestamptz,
  last_result jsonb,
  runs        bigint NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (builtin OR kind IS NOT NULL)
);
-- The scheduler's question: which schedules are due?
CREATE INDEX schedules_due_idx ON awc.schedules (next_run_at) WHERE NOT paused;

-- Deduplication: at most one PENDING or RUNNING job per (kind, dedupe_key).
-- The scheduler's planners set it ('snapshot:42', 'tenant:acme'); a
-- producer may too, with INSERT ... ON CONFLICT DO NOTHING.
ALTER TABLE awc.jobs ADD COLUMN dedupe_key text;
CREATE UNIQUE INDEX jobs_dedupe_idx ON awc.jobs (kind, dedupe_key)
  WHERE dedupe_key IS NOT NULL AND state IN ('PENDING', 'RUNNING');
-- The validate planner: is there a live validation job for this snapshot,
-- whoever enqueued it?
CREATE INDEX jobs_validate_live_idx ON awc.jobs ((payload -> 'snapshot_id'))
  WHERE kind = 'snapshot_validate' AND state IN ('PENDING', 'RUNNING');
-- Pruning: finished jobs by state and the time they finished (a producer's
-- cancel leaves finished_at NULL: updated_at then).
CREATE INDEX jobs_finished_idx
  ON awc.jobs (state, (coalesce(finished_at, updated_at)))
  WHERE state IN ('COMPLETED', 'CANCELLED', 'FAILED');
-- The planner keeps no statistics for the expression of a partial index;
-- without these it would guess a third of the table is past its retention.
CREATE STATISTICS awc.jobs_finished_stats
  ON (coalesce(finished_at, updated_at)) FROM awc.jobs;

-- The expire planner: workspaces by the time their next step is due.
CREATE INDEX workspaces_active_due_idx ON awc.workspaces (expires_at)
  WHERE state = 'ACTIVE';
CREATE INDEX workspaces_expiring_idx ON awc.workspaces (expiring_since)
  WHERE state = 'EXPIRING';
-- The retain planner: workspaces whose snapshots retention may release.
CREATE INDEX workspaces_retain_idx ON awc.workspaces (id)
  WHERE retention IS NOT NULL OR state = 'EXPIRED';

-- The scrub planner: READY snapshots by their last verification.
CREATE INDEX snapshots_scrub_idx
  ON awc.snapshots ((coalesce(scrubbed_at, validated_at, created_at)), id)
  WHERE state = 'READY';
-- The validate planner: VALIDATING snapshots by age.
CREATE INDEX snapshots_validating_idx ON awc.snapshots (created_at, id)
  WHERE state = 'VALIDATING';

-- Pruning audit events by age.
CREATE INDEX audit_events_created_idx ON awc.audit_events (created_at);
