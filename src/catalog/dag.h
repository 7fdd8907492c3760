// The content DAG of a tenant as the catalog keeps it: each validated
// manifest's entries, recorded once (awc.object_edges), and on each
// inventory row the number of live references to it (awc.objects.refs).
// The SQL is in dag_sql.h; the rules and why they keep GC safe are in
// docs/store.md, "Shared content", and docs/gc.md, "GC safety".
//
// Contract:
//  - A reference comes from the root of a snapshot that holds one
//    (awc.snapshots.holds_refs: READY or DEGRADED through validation) or
//    from an entry of a referenced manifest whose entries are recorded.
//    The entries that name manifests are counted at once; the file entries
//    of a manifest only once it is marked entries_counted (CountFileEntries,
//    run by GC): until then the manifest holds them through their recorded
//    entries (AWC_DAG_HELD_UNCOUNTED). "Held": referenced, or held so.
//    Invariant: every entry of a referenced, recorded manifest names a LIVE,
//    held row. References change only under LockTenantDag, and only on
//    0 <-> 1 does a change go on to a manifest's entries, so a change costs
//    what it changes, not the closure.
//  - AdjustRefs adding references fails with kTransient, changing nothing
//    the caller commits, when a row whose count it changes (the given
//    digests, and the manifest entries of manifests it makes referenced)
//    is DELETING, damaged, missing, or a manifest without recorded entries
//    that would become referenced: the caller's transaction rolls back and
//    the job retries. The file entries of a manifest it makes referenced
//    are the caller's to vouch for, under the same lock: validation makes
//    a manifest referenced only when it read it in the same walk, and then
//    each entry was read (and joins the inventory LIVE, not DELETING) or
//    trusted (and TrustStillHolds).
//  - Trustable() says which objects a walk may take on trust: LIVE,
//    held, not damaged, of the declared size, and a manifest only
//    when its entries are recorded and it is referenced. By the invariant,
//    everything under one is in the inventory, held and LIVE, and was read
//    by the validation that first made it held.
#ifndef AWC_CATALOG_DAG_H_
#define AWC_CATALOG_DAG_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cas/closure.h"
#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

// Takes the tenant's DAG lock until the caller's transaction ends; from
// then on the transaction waits for a row lock at most half of
// deadlock_timeout (then kTransient), so that against a producer holding
// the same rows it is the worker that gives way, and its statements, which
// all reach their rows by key, are planned without sequential scans
// whatever the statistics say. Taken before any row lock
// the transaction needs, except a workspace's (retention, expiry).
Status LockTenantDag(db::PgConn& conn, const std::string& tenant);

// What the catalog says of an object a walk is about to read.
struct ProbedObject {
  bool trusted = false;       // Trustable (see the contract)
  bool unregistered = false;  // no inventory row
  bool deleting = false;      // GC is deleting it
};
// One answer per object, one index probe each.
Result<std::vector<ProbedObject>> ProbeObjects(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<cas::ClosureObject>& objs);

// For WalkClosure's trust: one answer per object (see the contract).
Result<std::vector<bool>> Trustable(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<cas::ClosureObject>& objs);

// Under the DAG lock: false when an object the walk took on trust is no
// longer trustable (the walk must be done again).
Result<bool> TrustStillHolds(db::PgConn& conn, const std::string& tenant,
                             const cas::ClosureReport& report);

// Under the DAG lock, in the caller's transaction: records the entries of
// the manifests the walk read, marks those manifests recorded, and gives
// the references an already referenced one owes its entries.
// `read_since`: the database clock before the walk read anything (the
// verified_at of what gains its first reference); "" for now.
Status RecordManifests(db::PgConn& conn, const std::string& tenant,
                       const cas::ClosureReport& report,
                       const std::string& read_since = "");

// Under the DAG lock: adds (+1) or drops (-1) one reference to each of
// `digests` (repeats count), going on to a manifest's entries on 0 <-> 1.
// `read_since` as for RecordManifests.
Status AdjustRefs(db::PgConn& conn, const std::string& tenant,
                  const std::vector<std::string>& digests, int delta,
                  const std::string& read_since = "");

// In a transaction of its own, under the DAG lock: up to `max_manifests`
// referenced manifests whose file entries are held but not counted (a
// validation leaves them so: counting a new tree's files costs a row
// update each) give those entries their references. Returns how many
// manifests it took; 0 when none is left. GC runs it before it plans, so
// that its plan starts from the rows with no references.
Result<int64_t> CountFileEntries(db::PgConn& conn, const std::string& tenant,
                                 int64_t max_manifests);

struct DagClosureStats {
  int64_t objects = 0;
  int64_t bytes = 0;
  int max_manifest_depth = 0;
};
// The closure under `root` from the recorded entries (after RecordManifests
// for a root just validated).
Result<DagClosureStats> ClosureStatsOf(db::PgConn& conn,
                                       const std::string& tenant,
                                       const std::string& root);

// One object of a closure as its recorded entries give it, for a scrub.
struct RecordedObject {
  std::string digest;
  uint64_t size = 0;
  bool fresh = false;  // not damaged, and verified as recently as asked
};
// Calls `fn` with each object of the recorded closure under `root`, in
// digest order, one row in memory at a time. An object is fresh when it is
// not damaged and was verified less than `fresh_secs` ago, or at or after
// `fresh_since` (a database clock reading; "" for none). An error of `fn`
// stops the calls.
Status ForEachRecordedObject(
    db::PgConn& conn, const std::string& tenant, const std::string& root,
    int64_t fresh_secs, const std::string& fresh_since,
    const std::function<Status(const RecordedObject&)>& fn);

// The database clock now: taken before objects are read, it is when they
// were verified (never later than the reads).
Result<std::string> DatabaseClock(db::PgConn& conn);

// `digests` were read and found good after `read_since` (DatabaseClock):
// verified then, and no longer damaged unless marked damaged since.
Status MarkVerified(db::PgConn& conn, const std::string& tenant,
                    const std::vector<std::string>& digests,
                    const std::string& read_since);

// Of `digests`, read and found good by a validation whose walk began at
// `read_since`, those marked damaged before that are no longer (in the
// caller's transaction, under the DAG lock).
Status ClearDamaged(db::PgConn& conn, const std::string& tenant,
                    const std::vector<std::string>& digests,
                    const std::string& read_since);

// Under the DAG lock: drops the root references of snapshots that are no
// longer READY or DEGRADED (released by the worker or by plain SQL) or
// deleted; returns how many.
Result<int64_t> DropStrayRootRefs(db::PgConn& conn, const std::string& tenant);
// The same in a transaction of its own (after a release commits).
Result<int64_t> DropStrayRootRefsNow(db::PgConn& conn,
                                     const std::string& tenant);

// A READY snapshot whose root reaches a bad object, and the bad digests it
// reaches.
struct DamagedSnapshot {
  int64_t id = 0;
  std::vector<std::string> bad_digests;
};
// Under the DAG lock: marks the bad objects and every manifest above them
// damaged; returns the READY snapshots whose roots reach one.
Result<std::vector<DamagedSnapshot>> MarkDamaged(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& bad_digests);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_DAG_H_
