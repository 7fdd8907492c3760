// Snapshots: what the handlers do to awc.snapshots and a snapshot's closure
// (awc.snapshot_objects); the SQL is in catalog_sql.h.
//
// Each state change is conditional on the state the handler decided from
// (e.g. VALIDATING -> READY only while still VALIDATING), runs in one
// transaction with its audit event, and reports whether it applied, so two
// jobs racing on one snapshot cannot both act.
#ifndef AWC_CATALOG_SNAPSHOTS_H_
#define AWC_CATALOG_SNAPSHOTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "catalog/objects.h"
#include "catalog/states.h"
#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

struct Snapshot {
  int64_t id = 0;
  std::string tenant_id;
  std::optional<int64_t> workspace_id;
  std::string root_digest;
  SnapshotState state = SnapshotState::kValidating;
  bool pinned = false;
  double age_secs = 0;      // now - created_at, database clock
  bool holds_refs = false;  // its closure is in the DAG (catalog/dag.h)
};

Result<std::optional<Snapshot>> LoadSnapshot(db::PgConn& conn, int64_t id);

// The producer's insert: a VALIDATING snapshot; returns its id.
Result<int64_t> InsertSnapshot(db::PgConn& conn, const std::string& tenant,
                               std::optional<int64_t> workspace_id,
                               const std::string& root_digest);

// What CommitValidated did.
struct ValidatedCommit {
  bool applied = false;  // false: no longer VALIDATING, nothing changed
  // kDepthExceeded or kTooManyObjects when the closure, with what the walk
  // took on trust, breaks a limit: nothing committed, the snapshot fails.
  cas::Verdict verdict = cas::Verdict::kOk;
  std::string detail;
  int64_t objects = 0;  // the whole closure's
  int64_t bytes = 0;
};

// VALIDATING -> READY, under the tenant's DAG lock (catalog/dag.h): the
// manifests the walk read recorded, inventory rows for the objects it read,
// the root's reference given (holds_refs), the closure's counts and the
// audit event. kTransient, nothing committed, when a closure object is
// being deleted by GC, or was deleted by an epoch since `mark`'s
// (GcWatermark, catalog/objects.h, taken before the walk), or what the
// walk trusted no longer holds (the job retries and walks again). The walk
// probed every object it read (ProbeObjects, catalog/dag.h): inventory rows
// are added for `unregistered`, those it found without one.
Result<ValidatedCommit> CommitValidated(db::PgConn& conn, const Snapshot& snap,
                                        const cas::ClosureReport& report,
                                        const ReadMark& mark,
                                        const cas::ClosureObjects& unregistered,
                                        const cas::ClosureLimits& limits);

// VALIDATING -> FAILED with failure = {"code", "digest", "detail"}.
Result<bool> CommitValidationFailed(db::PgConn& conn, const Snapshot& snap,
                                    const cas::ClosureReport& report);

// One page of the closure rows recorded before the DAG (awc.legacy_closures),
// digests after `after` in order, with their inventory sizes (nullopt when
// the inventory has no row).
struct ClosurePageEntry {
  std::string digest;
  std::optional<uint64_t> size;
};
Result<std::vector<ClosurePageEntry>> ClosurePage(db::PgConn& conn,
                                                  const Snapshot& snap,
                                                  const std::string& after,
                                                  int limit);

// A READY snapshot that re-verified clean: scrubbed_at and the audit
// event. False when it is no longer READY. `walked`: the full walk of a
// snapshot that holds no references (closure rows from before the DAG, or
// none): under the DAG lock its closure is recorded as validation records
// it, the snapshot holds references from then on and its old closure rows
// go (docs/store.md, "Shared content"); `mark` as for CommitValidated,
// taken before that walk.
Result<bool> CommitScrubClean(db::PgConn& conn, const Snapshot& snap,
                              int64_t objects, int64_t bytes,
                              const cas::ClosureReport* walked = nullptr,
                              const ReadMark& mark = {},
                              const std::vector<std::string>& repaired = {});

// Who found bad objects, when it is not the degraded snapshot's own scrub:
// a scrub of another snapshot that shares them, or an inventory
// reconciliation (recorded in the failure as found_by and
// found_by_reconcile).
struct DamageFinder {
  std::optional<int64_t> snapshot;
  std::optional<int64_t> reconcile_run;
};

// Under the tenant's DAG lock, in the caller's transaction: marks `bad` and
// every manifest above them damaged (never trusted again) and makes every
// READY snapshot that reaches one DEGRADED (its failure naming the bad
// digests it reaches and `found_by`, its closure pinned, the audit event),
// but for `found_by.snapshot` itself. Returns the ids it degraded.
Result<std::vector<int64_t>> DegradeReaching(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& bad, const DamageFinder& found_by);

// DEGRADED -> READY for a snapshot whose every object verified good again
// (kSetRestored: the failure and the degradation's pins go), with the audit
// event snapshot.scrub, verdict "restored", naming `repaired`. False when
// it is no longer DEGRADED.
Result<bool> CommitScrubRestored(db::PgConn& conn, const Snapshot& snap,
                                 int64_t objects, int64_t bytes,
                                 const std::vector<std::string>& repaired);

// READY -> DEGRADED: the bad digests recorded in failure, the whole closure
// pinned in gc_pins, the audit event. Under the tenant's DAG lock, the bad
// objects and every manifest above them are marked damaged, and every
// other READY snapshot that reaches one becomes DEGRADED the same way
// (DegradeReaching; failure.found_by names this snapshot); their ids go to
// `also_degraded`.
Result<bool> CommitScrubDegraded(db::PgConn& conn, const Snapshot& snap,
                                 const std::vector<cas::BadObject>& bad,
                                 int64_t objects, int64_t bytes,
                                 std::vector<int64_t>* also_degraded);

// What retention decides from, for one READY snapshot.
struct RetentionFacts {
  // nullopt when the snapshot has no workspace (or it no longer exists).
  std::optional<WorkspaceState> workspace_state;
  std::optional<std::string> retention;  // workspaces.retention as JSON text
  int64_t rank = 0;  // 1 = newest READY snapshot of its workspace
};
// Locks the snapshot's workspace row (serialising retention decisions per
// workspace) and reads the facts; run inside a transaction.
Result<RetentionFacts> LoadRetentionFacts(db::PgConn& conn,
                                          const Snapshot& snap);

// READY -> RELEASED with released_at and the audit event (in the caller's
// transaction). False when it is no longer READY, or is pinned and
// `even_if_pinned` is false. The root's reference goes once it commits, by
// DropStrayRootRefsNow (catalog/dag.h) or else the next GC epoch: not
// while the caller holds the workspace's row lock.
Result<bool> ReleaseSnapshot(db::PgConn& conn, const Snapshot& snap,
                             const std::string& reason, bool even_if_pinned);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_SNAPSHOTS_H_
