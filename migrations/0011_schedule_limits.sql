-- Limits of awc.schedules that keep out rows the scheduler cannot fire
-- (docs/scheduler.md, "Schedules are data"):
--  - next_run_at from 1970 to 9999 (UTC). An infinity, or a time whose
--    microseconds since the epoch overflow a bigint, stopped every
--    schedule: the leader's firing of it failed, and failed again after
--    every restart.
--  - An operator schedule's job within the limits of every job: a kind of
--    at most 128 bytes (as jobs_kind_at_most_128_bytes, migration 0003) and
--    a payload that is a JSON object. awcctl schedules add --force skipped
--    the kind check and stored longer kinds, whose every firing failed.
--
-- Rows that break a limit are repaired first, so that adding the
-- constraints cannot fail on a live database; no row is deleted.
--  - A next_run_at before 1970 (-infinity included) was overdue: it becomes
--    now(), due at once, as it was.
--  - A schedule whose next_run_at is after 9999 (infinity included; it
--    would never have fired), whose kind is too long or whose payload is
--    not an object is disabled: paused, with the reasons in last_result
--    (awcctl schedules list shows them) and what had to change kept there
--    too: the whole kind under "kind" (the column keeps a prefix that
--    fits), the payload under "payload" (the column becomes {}).
--    next_run_at becomes now() if it was after 9999, so that once resumed
--    it fires at once. The operator fixes or removes such a row.
--
-- The table is locked first: a scheduler firing meanwhile waits for this
-- transaction rather than deadlock with its lock upgrades.
LOCK TABLE awc.schedules IN ACCESS EXCLUSIVE MODE;

UPDATE awc.schedules SET next_run_at = now(), updated_at = now()
 WHERE next_run_at < timestamptz '1970-01-01 00:00:00+00';

UPDATE awc.schedules
   SET paused = true,
       next_run_at = CASE WHEN next_run_at >= timestamptz '10000-01-01 00:00:00+00'
                          THEN now() ELSE next_run_at END,
       kind = CASE WHEN octet_length(kind) > 128 THEN left(kind, 24) || '...'
                   ELSE kind END,
       payload = CASE WHEN jsonb_typeof(payload) <> 'object' THEN '{}'::jsonb
                      ELSE payload END,
       last_result = jsonb_build_object(
         'result', 'error',
         'error', 'paused by migration 0011: ' || concat_ws('; ',
           CASE WHEN next_run_at >= timestamptz '10000-01-01 00:00:00+00'
                THEN 'next_run_at '
                     || CASE WHEN isfinite(next_run_at)
                             THEN to_char(next_run_at AT TIME ZONE 'UTC',
                                          'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                             ELSE next_run_at::text END
                     || ' is after 9999' END,
           CASE WHEN octet_length(kind) > 128
                THEN 'kind is longer than 128 bytes (' || octet_length(kind)
                     || '); the whole kind is in last_result.kind' END,
           CASE WHEN jsonb_typeof(payload) <> 'object'
                THEN 'the payload is not a JSON object; it is in '
                     || 'last_result.payload' END))
         || CASE WHEN octet_length(kind) > 128
                 THEN jsonb_build_object('kind', kind) ELSE '{}'::jsonb END
         || CASE WHEN jsonb_typeof(payload) <> 'object'
                 THEN jsonb_build_object('payload', payload)
                 ELSE '{}'::jsonb END,
       updated_at = now()
 WHERE next_run_at >= timestamptz '10000-01-01 00:00:00+00'
    OR octet_length(kind) > 128
    OR jsonb_typeof(payload) <> 'object';

ALTER TABLE awc.schedules ADD CONSTRAINT schedules_next_run_at_in_range
  CHECK (next_run_at >= timestamptz '1970-01-01 00:00:00+00'
         AND next_run_at < timestamptz '10000-01-01 00:00:00+00');
ALTER TABLE awc.schedules ADD CONSTRAINT schedules_kind_at_most_128_bytes
  CHECK (octet_length(kind) <= 128);
ALTER TABLE awc.schedules ADD CONSTRAINT schedules_payload_is_object
  CHECK (jsonb_typeof(payload) = 'object');
