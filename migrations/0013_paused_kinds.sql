-- Paused job kinds (docs/queue.md, "Pausing a kind"): an operator pauses a
-- kind to contain a poison job; its PENDING jobs stay PENDING and no
-- worker claims them until the kind is resumed. Jobs keep being enqueued
-- (by producers and the scheduler); nothing is lost.
--
-- The kind has the limit of every job's kind (jobs_kind_at_most_128_bytes,
-- migration 0003). The runtime role reads and writes it through the
-- default privileges of awcctl roles --sql, as every table of awc.
CREATE TABLE awc.paused_kinds (
  kind      text PRIMARY KEY
            CONSTRAINT paused_kinds_kind_at_most_128_bytes
            CHECK (octet_length(kind) BETWEEN 1 AND 128),
  paused_at timestamptz NOT NULL DEFAULT now(),
  paused_by text,
  reason    text
);

-- While a kind is paused the claim takes the oldest ready job of each
-- other kind from here, one probe per kind, instead of walking the whole
-- PENDING backlog of the paused kind in jobs_claim_idx
-- (src/queue/queue_sql.h, kClaim). A job enters it once, when queued.
CREATE INDEX jobs_pending_kind_run_idx ON awc.jobs (kind, run_at, id)
  WHERE state = 'PENDING';

-- A resume wakes the idle workers at once, as an insert into awc.jobs
-- does (migration 0001): the jobs of the kind are claimable again.
CREATE TRIGGER paused_kinds_notify
  AFTER DELETE ON awc.paused_kinds
  FOR EACH STATEMENT EXECUTE FUNCTION awc.jobs_notify();
