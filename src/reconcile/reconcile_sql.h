// Every SQL statement of inventory reconciliation (store_reconcile), in one
// place. What a run does and why it is safe beside GC and producers:
// docs/store.md, "Reconciliation".
//
// Values travel only as $n parameters; digests as text ("sha256:<hex>").
#ifndef AWC_RECONCILE_RECONCILE_SQL_H_
#define AWC_RECONCILE_RECONCILE_SQL_H_

namespace awc::reconcile::sql {

// $1 tenant.
inline constexpr const char* kTenantExists = R"sql(
SELECT 1 FROM awc.tenants WHERE id = $1
)sql";

// $1 tenant, $2 holder, $3 TTL seconds, $4 job id (NULL for none). Opens
// the tenant's run, or takes over its open one when it is free (expired),
// already ours, or held by an earlier attempt of this job: that attempt
// has ended, or its job was taken from it and its transactions commit
// nothing (docs/queue.md, "Fencing a handler's transactions"), so its hold
// must not defer the attempt that follows it. Returns (id, cursor or '',
// started_at in µs since the epoch, resumed, now in seconds since the
// epoch, the counts in the order of kSaveProgress); no row when another
// job holds it.
inline constexpr const char* kTakeRun = R"sql(
INSERT INTO awc.reconcile_runs AS r (tenant_id, holder, expires_at, job_id)
VALUES ($1, $2, now() + make_interval(secs => $3::float8), $4)
    ON CONFLICT (tenant_id) WHERE state = 'RUNNING' DO UPDATE
   SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
       job_id = EXCLUDED.job_id
 WHERE r.expires_at < now() OR r.holder = EXCLUDED.holder
    OR r.job_id = EXCLUDED.job_id
RETURNING r.id, coalesce(r.cursor, ''),
          (extract(epoch FROM r.started_at) * 1000000)::int8,
          r.xmax <> 0, extract(epoch FROM now())::float8,
          r.listed, r.objects, r.other_keys, r.orphans, r.orphan_bytes,
          r.young_orphans, r.missing, r.wrong_size, r.repaired, r.degraded,
          r.other_examples::text
)sql";

// $1 tenant. Who holds the open run, for the deferral's reason.
inline constexpr const char* kRunHolder = R"sql(
SELECT holder FROM awc.reconcile_runs WHERE tenant_id = $1 AND state = 'RUNNING'
)sql";

// $1 tenant, $2 after this digest ('' for the first), $3 rows created
// before this time (µs since the epoch) are judged, $4 limit. The next
// inventory rows in digest order: (digest, size, LIVE, judged).
inline constexpr const char* kInventoryPage = R"sql(
SELECT digest, size, state = 'LIVE',
       created_at < timestamptz 'epoch' + $3::int8 * interval '1 microsecond'
  FROM awc.objects
 WHERE tenant_id = $1 AND digest > $2
 ORDER BY digest
 LIMIT $4::int
)sql";

// $1 tenant, $2 digests, $3 sizes, $4 the store's times (seconds since the
// epoch), $5 the GC watermark taken when the job began (catalog/objects.h,
// GcWatermark). Registers orphans: objects in the store with no inventory
// row, old by the store's own clock, as LIVE rows touched when the store
// wrote them, so that GC's next epoch deletes them under all of its rules.
// One that GC deleted since the watermark (listed, then deleted) is not
// registered, nor one a producer registered meanwhile. Returns (digest,
// size) of the rows inserted.
inline constexpr const char* kRegisterOrphans = R"sql(
WITH u AS (
  SELECT d, s, to_timestamp(m) AS t
    FROM unnest($2::text[], $3::int8[], $4::float8[]) AS u(d, s, m))
INSERT INTO awc.objects (tenant_id, digest, size, created_at, last_seen_at)
SELECT $1, u.d, u.s, u.t, u.t FROM u
 WHERE NOT EXISTS (
   SELECT 1 FROM awc.gc_epochs e
     JOIN awc.gc_candidates c ON c.epoch_id = e.id AND c.digest = u.d
    WHERE e.tenant_id = $1 AND e.id >= $5::bigint
      AND c.state IN ('DELETING', 'DELETED'))
 ORDER BY u.d
    ON CONFLICT DO NOTHING
RETURNING digest, size
)sql";

// $1 tenant, $2 digests, $3 rows created before this time are judged (µs).
// Under the DAG lock: the rows of `digests` that are still LIVE and
// judged, locked against GC's mark for the rest of the transaction (so an
// object found absent now was not deleted by GC): (digest, size).
inline constexpr const char* kLockSuspects = R"sql(
SELECT digest, size FROM awc.objects
 WHERE tenant_id = $1 AND digest = ANY($2::text[]) AND state = 'LIVE'
   AND created_at < timestamptz 'epoch' + $3::int8 * interval '1 microsecond'
 ORDER BY digest
   FOR SHARE
)sql";

// $1 run, $2 holder, $3 TTL seconds, $4 cursor, $5..$14 the counts (listed,
// objects, other_keys, orphans, orphan_bytes, young_orphans, missing,
// wrong_size, repaired, degraded), $15 other_examples (JSON array). A row
// while the run is still ours (the lease renewed).
inline constexpr const char* kSaveProgress = R"sql(
UPDATE awc.reconcile_runs
   SET cursor = $4, listed = $5, objects = $6, other_keys = $7, orphans = $8,
       orphan_bytes = $9, young_orphans = $10, missing = $11,
       wrong_size = $12, repaired = $13, degraded = $14,
       other_examples = $15::jsonb,
       expires_at = now() + make_interval(secs => $3::float8)
 WHERE id = $1 AND holder = $2 AND state = 'RUNNING'
RETURNING 1
)sql";

// $1 run, $2 holder. Closes the run (after a last kSaveProgress in the
// same transaction).
inline constexpr const char* kFinishRun = R"sql(
UPDATE awc.reconcile_runs SET state = 'COMPLETED', finished_at = now()
 WHERE id = $1 AND holder = $2 AND state = 'RUNNING'
RETURNING 1
)sql";

}  // namespace awc::reconcile::sql

#endif  // AWC_RECONCILE_RECONCILE_SQL_H_
