-- Limits of awc.schedules that keep out rows the scheduler cannot fire
-- (docs/scheduler.md, "Schedules are data"): a next_run_at from 1970 to
-- 9999 (UTC). An infinity, or a time whose microseconds since the epoch
-- overflow a bigint, stopped every schedule: the leader's firing of it
-- failed, and failed again after every restart.
--
-- Rows that break a limit are repaired first, so that adding the
-- constraints cannot fail on a live database; no row is deleted.
--  - A next_run_at before 1970 (-infinity included) was overdue: it becomes
--    now(), due at once, as it was.
--  - A next_run_at after 9999 (infinity included) would never have come:
--    the schedule is paused, as it in effect was, with the reason in
--    last_result (awcctl schedules list shows it); next_run_at becomes
--    now(), so that once resumed it fires at once.
--
-- The table is locked first: a scheduler firing meanwhile waits for this
-- transaction rather than deadlock with its lock upgrades.
LOCK TABLE awc.schedules IN ACCESS EXCLUSIVE MODE;

UPDATE awc.schedules SET next_run_at = now(), updated_at = now()
 WHERE next_run_at < timestamptz '1970-01-01 00:00:00+00';

UPDATE awc.schedules
   SET paused = true,
       next_run_at = now(),
       last_result = jsonb_build_object(
         'result', 'error',
         'error', 'paused by migration 0011: next_run_at '
                  || CASE WHEN isfinite(next_run_at)
                          THEN to_char(next_run_at AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                          ELSE next_run_at::text END
                  || ' is after 9999'),
       updated_at = now()
 WHERE next_run_at >= timestamptz '10000-01-01 00:00:00+00';

ALTER TABLE awc.schedules ADD CONSTRAINT schedules_next_run_at_in_range
  CHECK (next_run_at >= timestamptz '1970-01-01 00:00:00+00'
         AND next_run_at < timestamptz '10000-01-01 00:00:00+00');
