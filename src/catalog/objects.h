// The inventory (awc.objects) outside GC, which keeps its own statements in
// gc/gc_sql.h; the SQL is in catalog_sql.h.
//
// Producer protocol (docs/data-model.md, "Data model and producer
// contract"): an object already LIVE is deduplicated by touching
// last_seen_at in the transaction that inserts the snapshot; one that GC
// marked DELETING counts as absent until GC has removed its row.
#ifndef AWC_CATALOG_OBJECTS_H_
#define AWC_CATALOG_OBJECTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/states.h"
#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

// The state of each digest the inventory holds.
Result<std::map<std::string, ObjectState>> InventoryStates(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests);

// Registers a snapshot's objects in the caller's transaction. Those the
// caller uploaded itself (`uploaded[i]`) are inserted as LIVE when missing;
// the LIVE rows of all of them get last_seen_at touched (their rows stay
// locked until the transaction ends, so GC cannot mark them meanwhile).
// Returns the digests that are not LIVE now: GC is deleting them, or, for
// one the caller deduplicated, GC has removed its row (and the object)
// since the caller looked. The caller treats those as absent and starts
// over for them. `sizes` and `uploaded` parallel `digests`.
Result<std::vector<std::string>> RegisterObjects(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests, const std::vector<uint64_t>& sizes,
    const std::vector<bool>& uploaded);

// In the caller's transaction, first: locks the existing rows of `digests`
// in digest order. A producer that locks everything it will register or
// touch this way waits for an overlapping producer instead of deadlocking
// with it (RegisterObjects and TouchReusedTops then wait only for rows
// another producer is inserting, which they insert in digest order too).
Status LockObjectRows(db::PgConn& conn, const std::string& tenant,
                      const std::vector<std::string>& digests);

// Of the manifests `digests`, those a producer may reuse whole by touching
// only them (LIVE, referenced, entries recorded: docs/data-model.md).
Result<std::set<std::string>> ReusableManifests(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests);

// In the caller's transaction: touches the tops of reused subtrees that
// are still reusable, locking their rows; returns those that no longer are
// (the caller walks into them instead).
Result<std::vector<std::string>> TouchReusedTops(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& tops);

// In the caller's transaction: the object's state, its row locked until the
// transaction ends so that GC cannot mark it meanwhile; nullopt when it
// has no row.
Result<std::optional<ObjectState>> LockObjectRow(db::PgConn& conn,
                                                 const std::string& tenant,
                                                 const std::string& digest);

// What a walk whose reads its commit will register takes before it reads.
struct ReadMark {
  // The first GC epoch of the tenant that may delete an object from now on.
  int64_t gc_epoch = 0;
  // The database clock (DatabaseClock, catalog/dag.h): what the walk reads
  // is verified no earlier than this.
  std::string clock;
};
Result<ReadMark> GcWatermark(db::PgConn& conn, const std::string& tenant);

// Of `digests`, the first that a GC epoch since `gc_watermark` is deleting
// or has deleted, or "" (one query, and none at all when no epoch ran
// since the watermark: `*epochs_since` caches that answer, nullopt at
// first).
Result<std::string> DeletedSince(db::PgConn& conn, const std::string& tenant,
                                 int64_t gc_watermark,
                                 const std::vector<std::string>& digests,
                                 std::optional<bool>* epochs_since);

// Validation's side, in its transaction: inventory rows for closure objects
// the producer did not register (existing rows are left as they are).
// Returns the first of `digests` that GC is deleting, or has deleted in an
// epoch since `gc_watermark` (GcWatermark, taken before the objects were
// read), or "": then the caller must not commit, for the object it read
// may be gone.
Result<std::string> AddMissingObjects(db::PgConn& conn,
                                      const std::string& tenant,
                                      const std::vector<std::string>& digests,
                                      const std::vector<uint64_t>& sizes,
                                      int64_t gc_watermark);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_OBJECTS_H_
