// Every SQL statement on awc.workers, the workers' heartbeats, in one place
// (docs/observability.md, "Worker heartbeats").
//
// Values travel only as $n parameters. A worker runs kBeat through
// PgConn::ExecCached (prepared once per connection); kPrune runs now and
// then, kListWorkers once per `awcctl workers` or `health --fleet`.
// heartbeat_at is clock_timestamp(), not now(): a beat may run inside a
// handler's long transaction, whose now() is its start.
#ifndef AWC_FLEET_FLEET_SQL_H_
#define AWC_FLEET_FLEET_SQL_H_

namespace awc::fleet::sql {

// $1 host, $2 pid, $3 worker id, $4 slot (1-based), $5 started_at (epoch
// seconds), $6 state ('idle', 'busy', 'stopped'), $7 job id or NULL, $8 job
// kind or NULL, $9 the job's progress (JSON) or NULL. Creates the worker's
// row or brings it up to date.
inline constexpr const char* kBeat = R"sql(
INSERT INTO awc.workers AS w (host, pid, worker_id, slot, started_at,
                              heartbeat_at, state, job_id, job_kind, progress)
VALUES ($1, $2, $3, $4, to_timestamp($5::float8), clock_timestamp(), $6, $7,
        $8, $9::jsonb)
    ON CONFLICT (host, pid) DO UPDATE
   SET worker_id = EXCLUDED.worker_id, slot = EXCLUDED.slot,
       started_at = EXCLUDED.started_at, heartbeat_at = clock_timestamp(),
       state = EXCLUDED.state, job_id = EXCLUDED.job_id,
       job_kind = EXCLUDED.job_kind, progress = EXCLUDED.progress
)sql";

// $1 host, $2 pid, $3 worker id, $4 seconds. Removes the rows of workers
// silent for longer than $4 seconds, and those of earlier processes of this
// worker id on this host (the slot's previous process, which the master
// reaped before starting this one). Rows locked by a beat in flight are
// skipped, never waited for.
inline constexpr const char* kPrune = R"sql(
DELETE FROM awc.workers
 WHERE (host, pid) IN (
   SELECT host, pid FROM awc.workers
    WHERE heartbeat_at < clock_timestamp() - make_interval(secs => $4::float8)
       OR (host = $1 AND worker_id = $3 AND pid <> $2)
      FOR UPDATE SKIP LOCKED)
)sql";

// $1 fresh seconds. Every row by host and slot: (host, slot, worker id, pid,
// state, job id or NULL, job kind or '', started_at ISO 8601 UTC, heartbeat
// age in seconds, whether the heartbeat is younger than $1 seconds).
inline constexpr const char* kListWorkers = R"sql(
SELECT host, slot, worker_id, pid, state, job_id, coalesce(job_kind, ''),
       to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       extract(epoch FROM clock_timestamp() - heartbeat_at),
       heartbeat_at > clock_timestamp() - make_interval(secs => $1::float8),
       coalesce(progress::text, '')
  FROM awc.workers
 ORDER BY host, slot, started_at DESC
)sql";

}  // namespace awc::fleet::sql

#endif  // AWC_FLEET_FLEET_SQL_H_
