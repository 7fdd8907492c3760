// One durable GC epoch for one tenant: the body of gc_sweep. Why it never
// deletes a live object: docs/gc.md, "GC safety". Its verdicts
// (completed, dry run, aborted, refused, locked out) are data, never
// errors.
//
// Contract:
//  1. The tenant's GC lock (a TTL row in awc.gc_locks, renewed as the sweep
//     progresses and checked before every batch) is taken first; held by
//     someone else, or held by a sweeper that is deleting a batch for
//     longer than a second -> verdict kLockedOut and nothing else happens.
//  2. An unfinished epoch of the tenant is resumed (with the settings it was
//     planned with); otherwise a new one is planned: if a VALIDATING
//     snapshot is older than the grace, nothing is planned (kRefused);
//     else the eligible objects are counted and the oldest batch_size of
//     them recorded as candidates.
//  3. Dry run: the plan is recorded and the epoch completes; nothing is
//     deleted (kDryRun).
//  4. Candidates are deleted in order, the first canary_size as a canary
//     batch, then batches of at most 1000. Per batch: one transaction
//     re-checks every candidate under its row lock and marks the still
//     eligible ones DELETING (the rest KEPT); a second one, holding the
//     lock row throughout, reads them, deletes them from the store (absent
//     objects are fine) and removes their rows. After
//     the canary batch, no deleted digest may be live; if one is, the epoch
//     is aborted, nothing more is deleted (kAborted). A VALIDATING snapshot
//     that ages past the grace mid-epoch stops the marking: what earlier
//     attempts marked is deleted, the rest is kept and the epoch ends
//     (kRefused).
//  5. The epoch's outcome and the audit event gc.epoch are recorded and the
//     lock released.
// Every step is recorded before the next starts, so a crash anywhere
// leaves a state the next sweep resumes from. Errors (store, database, a
// lost lock) come back as Status; the epoch stays open for the next run.
#ifndef AWC_GC_SWEEP_H_
#define AWC_GC_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "db/pg.h"
#include "store/object_store.h"

namespace awc::gc {

struct SweepOptions {
  int64_t grace_secs = 86400;
  int64_t batch_size = 1000;
  int64_t canary_size = 10;
  bool dry_run = false;
  std::string holder;  // lock holder, unique per running job
  int64_t job_id = 0;
  double lock_ttl_secs = 300;
};

// Told the objects and bytes of each batch as its deletion commits, so a
// sweep that stops later (an error, a crash) has still reported them, and
// a resumed epoch reports only what it deletes itself.
using DeletedFn = std::function<void(int64_t objects, int64_t bytes)>;

struct SweepReport {
  enum class Verdict { kCompleted, kDryRun, kAborted, kRefused, kLockedOut };
  Verdict verdict = Verdict::kCompleted;
  int64_t epoch_id = 0;
  bool resumed = false;
  int64_t planned = 0;
  int64_t planned_bytes = 0;
  int64_t deleted = 0;
  int64_t deleted_bytes = 0;
  int64_t kept = 0;
  std::string reason;  // for kAborted, kRefused, kLockedOut
};

const char* VerdictName(SweepReport::Verdict verdict);

// `checkpoint` is called between batches (lease renewal); `deleted`, when
// set, after each batch's deletion commits.
Result<SweepReport> RunSweep(db::PgConn& conn, store::ObjectStore& store,
                             const std::string& tenant_id,
                             const SweepOptions& options,
                             const std::function<Status()>& checkpoint,
                             const DeletedFn& deleted = nullptr);

}  // namespace awc::gc

#endif  // AWC_GC_SWEEP_H_
