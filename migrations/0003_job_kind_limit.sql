-- A job's kind names a handler: a short identifier. A longer one cannot be
-- the name of any handler, and one longer than a btree index entry (about
-- 2.7 kB) could not even be dead-lettered (jobs_dead_letter_idx indexes the
-- kind of FAILED rows), so a worker could never finish such a job.
-- Producers now get a clear error at insert.
--
-- Rows already in the table with a longer kind are finished here: a
-- PENDING or RUNNING one is dead-lettered (it could never run), and every
-- such row keeps its whole kind under "kind" in result while its kind
-- column is cut to a prefix that fits.
UPDATE awc.jobs
   SET result = coalesce(result, '{}'::jsonb) || jsonb_build_object('kind', kind),
       kind = left(kind, 24) || '...',
       state = CASE WHEN state IN ('PENDING', 'RUNNING') THEN 'FAILED'
                    ELSE state END,
       last_error = CASE WHEN state IN ('PENDING', 'RUNNING')
                         THEN 'kind is longer than 128 bytes ('
                              || octet_length(kind)
                              || '); the whole kind is in result.kind'
                         ELSE last_error END,
       finished_at = CASE WHEN state IN ('PENDING', 'RUNNING') THEN now()
                          ELSE finished_at END,
       locked_until = CASE WHEN state IN ('PENDING', 'RUNNING') THEN NULL
                           ELSE locked_until END,
       updated_at = now()
 WHERE octet_length(kind) > 128;

ALTER TABLE awc.jobs
  ADD CONSTRAINT jobs_kind_at_most_128_bytes CHECK (octet_length(kind) <= 128);
