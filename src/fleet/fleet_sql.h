// Every SQL statement on awc.workers, the workers' heartbeats, in one place
// (docs/observability.md, "Worker heartbeats").
//
// Values travel only as $n parameters. A worker runs kBeat through
// PgConn::ExecCached (prepared once per connection); kPrune runs now and
// then, kListWorkers once per `awcctl workers` or `health --fleet`, and
// kIdClashes once per `awcctl health --fleet`, console overview and check
// of the master's probe (db/probe.h).
// heartbeat_at is clock_timestamp(), not now(): a beat may run inside a
// handler's long transaction, whose now() is its start.
#ifndef AWC_FLEET_FLEET_SQL_H_
#define AWC_FLEET_FLEET_SQL_H_

namespace awc::fleet::sql {

// $1 host, $2 pid, $3 worker id, $4 slot (1-based), $5 started_at (epoch
// seconds), $6 state ('idle', 'busy', 'stopped'), $7 job id or NULL, $8 job
// kind or NULL, $9 the job's progress (JSON) or NULL, $10 build (release),
// $11 the newest migration the build knows, $12 the kinds it handles
// (text[]). Creates the worker's row or brings it up to date.
inline constexpr const char* kBeat = R"sql(
INSERT INTO awc.workers AS w (host, pid, worker_id, slot, started_at,
                              heartbeat_at, state, job_id, job_kind, progress,
                              build, schema_version, kinds)
VALUES ($1, $2, $3, $4, to_timestamp($5::float8), clock_timestamp(), $6, $7,
        $8, $9::jsonb, $10, $11, $12::text[])
    ON CONFLICT (host, pid) DO UPDATE
   SET worker_id = EXCLUDED.worker_id, slot = EXCLUDED.slot,
       started_at = EXCLUDED.started_at, heartbeat_at = clock_timestamp(),
       state = EXCLUDED.state, job_id = EXCLUDED.job_id,
       job_kind = EXCLUDED.job_kind, progress = EXCLUDED.progress,
       build = EXCLUDED.build, schema_version = EXCLUDED.schema_version,
       kinds = EXCLUDED.kinds
)sql";

// Whether awc.workers exists (the migration runner asks on a database that
// may have no schema yet).
inline constexpr const char* kWorkersTableExists = R"sql(
SELECT to_regclass('awc.workers') IS NOT NULL
)sql";

// $1 kind, $2 fresh seconds. The builds of live workers (a heartbeat younger
// than $2 seconds, not stopped) that handle the kind, each once.
inline constexpr const char* kBuildsHandling = R"sql(
SELECT DISTINCT coalesce(build, '')
  FROM awc.workers
 WHERE $1 = ANY (kinds) AND state <> 'stopped'
   AND heartbeat_at > clock_timestamp() - make_interval(secs => $2::float8)
 ORDER BY 1
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
// age in seconds, whether the heartbeat is younger than $1 seconds, progress
// or '', build or '', schema version or NULL). The build's columns are read
// through to_jsonb, so that the runner applying migration 0021, which adds
// them, reads the workers of a schema without them.
inline constexpr const char* kListWorkers = R"sql(
SELECT host, slot, worker_id, pid, state, job_id, coalesce(job_kind, ''),
       to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       extract(epoch FROM clock_timestamp() - heartbeat_at),
       heartbeat_at > clock_timestamp() - make_interval(secs => $1::float8),
       coalesce(progress::text, ''), coalesce(to_jsonb(w)->>'build', ''),
       (to_jsonb(w)->>'schema_version')::int
  FROM awc.workers w
 ORDER BY host, slot, started_at DESC
)sql";

// $1 fresh seconds. The ids (AWC_WORKER_ID: a row's worker id without its
// "-<slot>") whose rows that are younger than $1 seconds and not stopped
// come from more than one host (docs/observability.md, "Worker ids on
// more than one host"): (id, host), one row per host, by id and host.
inline constexpr const char* kIdClashes = R"sql(
WITH live AS (
  SELECT DISTINCT host,
         CASE WHEN worker_id LIKE '%-' || slot
              THEN left(worker_id, -length('-' || slot))
              ELSE worker_id END AS id
    FROM awc.workers
   WHERE state <> 'stopped'
     AND heartbeat_at > clock_timestamp() - make_interval(secs => $1::float8))
SELECT id, host
  FROM live
 WHERE id IN (SELECT id FROM live GROUP BY id HAVING count(*) > 1)
 ORDER BY id, host
)sql";

}  // namespace awc::fleet::sql

#endif  // AWC_FLEET_FLEET_SQL_H_
