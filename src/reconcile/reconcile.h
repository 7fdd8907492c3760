// Inventory reconciliation for one tenant: the body of store_reconcile.
// What it finds and why acting on it is safe beside GC and producers:
// docs/store.md, "Reconciliation".
//
// Contract:
//  1. The tenant's open run (awc.reconcile_runs) is taken, or a new one
//     opened; a run another job holds (its lease not yet expired) ->
//     held_elsewhere and nothing else happens. A run an earlier attempt of
//     the same job (options.job_id) left open is taken over at once: that
//     attempt failed or lost its job, and only the job's current claim
//     commits. A run resumes after the last digest it finished, with its
//     counts and its started_at.
//  2. The store is listed in digest order (ObjectStore::List) and merged
//     with awc.objects read in digest order, a page at a time: memory does
//     not grow with the tenant.
//  3. An object in the store with no inventory row, older than
//     `grace_secs` by the store's own clock, is an orphan: it is registered
//     as a LIVE row touched when the store wrote it, so that GC's next
//     epoch deletes it under all of its rules (reconciliation itself never
//     deletes). A younger one is counted and left to a later run.
//  4. A LIVE inventory row older than the run whose object the listing did
//     not show, or showed with another size, is a suspect. Under the
//     tenant's DAG lock, with the row locked against GC's mark, the store
//     is asked again (Head): absent, or of another size, the object is bad.
//     `repair` (when set) may restore it; otherwise it is marked damaged and
//     every READY snapshot that reaches it becomes DEGRADED, with this run
//     as the finder. No object's content is read.
//  5. Keys that are not objects' are counted (the first few named) and left
//     alone.
//  6. Progress (the cursor and the counts) is recorded every `flush_every`
//     keys and the run's lease renewed there, in the transaction that
//     registers that stretch's orphans and settles its suspects; the end
//     closes the run and records the audit event store.reconcile.
// Errors (store, database, a lost run) come back as Status; the run stays
// open for the next job, which resumes it.
#ifndef AWC_RECONCILE_RECONCILE_H_
#define AWC_RECONCILE_RECONCILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "common/status.h"
#include "db/pg.h"
#include "store/object_store.h"

namespace awc::reconcile {

// A bad object found by a run, for `repair`.
struct BadObject {
  std::string digest;
  uint64_t size = 0;  // what the inventory says
};

// Tries to restore `bad` in the store, under the DAG lock and the row's
// lock; true when it did (the object is good again and nothing is
// degraded for it).
using RepairFn = std::function<Result<bool>(const BadObject& bad)>;

struct ReconcileOptions {
  int64_t grace_secs = 86400;  // orphans younger than this are left alone
  std::string holder;          // the run's holder, unique per attempt of a job
  // The job running it (0: none); its later attempts take over a run its
  // earlier ones left open.
  int64_t job_id = 0;
  double lease_secs = 300;      // the run's hold, renewed at every flush
  int64_t flush_every = 10000;  // keys between two records of progress
  int64_t page = 10000;         // inventory rows read at a time
  // Before a stretch's suspects are settled (a Head each, and a repair's
  // copy at most): the host's read budget (may be empty).
  cas::PaceFn pace;
  // After each stretch: keys and their bytes listed so far (may be empty).
  std::function<void(int64_t keys, int64_t bytes)> progress;
};

struct ReconcileReport {
  bool held_elsewhere = false;  // another job holds the run: nothing done
  std::string holder;           // who, then
  int64_t run_id = 0;
  bool resumed = false;
  int64_t listed = 0;      // keys listed (this run, resumed parts included)
  int64_t objects = 0;     // of them, objects' keys
  int64_t other_keys = 0;  // of them, anything else
  std::vector<std::string> other_examples;  // the first few of those
  int64_t orphans = 0;                      // registered for GC
  int64_t orphan_bytes = 0;
  int64_t young_orphans = 0;  // younger than the grace: left for later
  int64_t missing = 0;        // LIVE rows whose object is absent
  int64_t wrong_size = 0;     // LIVE rows whose object has another size
  int64_t repaired = 0;       // of the bad ones, restored by `repair`
  int64_t degraded = 0;       // snapshots made DEGRADED
};

// The run's counts as JSON: the job's result and its store.reconcile audit
// event carry the same object.
std::string ReportJson(const ReconcileReport& report);

// `checkpoint` is called at every flush (lease renewal); `committed`, when
// set, after each flush commits, with what that flush added (for metrics).
Result<ReconcileReport> RunReconcile(
    db::PgConn& conn, store::ObjectStore& store, const std::string& tenant,
    const ReconcileOptions& options, const std::function<Status()>& checkpoint,
    const RepairFn& repair = nullptr,
    const std::function<void(const ReconcileReport& added)>& committed =
        nullptr);

}  // namespace awc::reconcile

#endif  // AWC_RECONCILE_RECONCILE_H_
