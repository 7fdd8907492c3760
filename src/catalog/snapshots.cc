#include "catalog/snapshots.h"

#include <algorithm>
#include <optional>

#include "catalog/audit.h"
#include "catalog/catalog_sql.h"
#include "catalog/dag.h"
#include "catalog/objects.h"
#include "common/json.h"

namespace awc::catalog {
namespace {

// Closure rows go in batches, read from the walk's closure in digest order,
// so a ten-million-object closure never builds one giant statement nor sits
// in memory whole.
constexpr size_t kInsertBatch = 10000;
// At most this many bad digests are listed in failure and audit data.
constexpr size_t kMaxListedBad = 1000;

std::string Id(int64_t id) { return std::to_string(id); }

// Under the DAG lock, in the caller's transaction: what a walk of `snap`
// read joins the inventory (no longer damaged, none DELETING or deleted by
// GC since `mark`, taken before the walk), the entries of the
// manifests it read are recorded, and the root gains its reference.
// `unregistered`: the objects the walk's probe found without a row (a
// probed walk: the rows of the rest were there when the walk looked, and
// only an epoch since the watermark can have taken them); nullptr: every
// object read is looked up. A row added records the size the walk read:
// an entry's declared size, which the read matched, and for the root,
// which no entry declares (the probe saw it with size 0), the length read.
Status RecordWalk(db::PgConn& conn, const Snapshot& snap,
                  const cas::ClosureReport& report, const ReadMark& mark,
                  const cas::ClosureObjects* unregistered) {
  auto refuse = [](const std::string& digest) {
    return Status::Transient("object " + digest + " is being deleted by GC");
  };
  auto add_missing = [&](const std::vector<cas::ClosureObject>& batch,
                         bool skip_trusted) -> Status {
    std::vector<std::string> digests;
    std::vector<uint64_t> sizes;
    for (const cas::ClosureObject& o : batch) {
      if (skip_trusted && o.trusted) continue;
      digests.push_back(o.digest());
      sizes.push_back(digests.back() == snap.root_digest ? report.root_size
                                                         : o.size);
    }
    if (digests.empty()) return Status::OK();
    // An object GC has started to delete, or deleted after the walk read
    // it, cannot join a READY closure.
    AWC_ASSIGN_OR_RETURN(
        std::string deleting,
        AddMissingObjects(conn, snap.tenant_id, digests, sizes, mark.gc_epoch));
    return deleting.empty() ? Status::OK() : refuse(deleting);
  };
  std::optional<bool> epochs_since;
  AWC_RETURN_IF_ERROR(report.objects.ForEachBatch(
      kInsertBatch,
      [&](const std::vector<cas::ClosureObject>& batch) -> Status {
        std::vector<std::string> read;
        for (const cas::ClosureObject& o : batch) {
          if (!o.trusted) read.push_back(o.digest());
        }
        if (read.empty()) return Status::OK();
        if (unregistered == nullptr) {
          AWC_RETURN_IF_ERROR(add_missing(batch, true));
        } else {
          AWC_ASSIGN_OR_RETURN(std::string gone,
                               DeletedSince(conn, snap.tenant_id, mark.gc_epoch,
                                            read, &epochs_since));
          if (!gone.empty()) return refuse(gone);
        }
        // Read and good now (restored, say): no longer damaged.
        return ClearDamaged(conn, snap.tenant_id, read, mark.clock);
      }));
  if (unregistered != nullptr) {
    AWC_RETURN_IF_ERROR(unregistered->ForEachBatch(
        kInsertBatch, [&](const std::vector<cas::ClosureObject>& batch) {
          return add_missing(batch, false);
        }));
  }
  AWC_RETURN_IF_ERROR(
      RecordManifests(conn, snap.tenant_id, report, mark.clock));
  return AdjustRefs(conn, snap.tenant_id, {snap.root_digest}, +1, mark.clock);
}

}  // namespace

Result<std::optional<Snapshot>> LoadSnapshot(db::PgConn& conn, int64_t id) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kLoadSnapshot, {Id(id)}));
  if (r.rows() == 0) return std::optional<Snapshot>();
  Snapshot s;
  s.id = r.GetInt(0, 0);
  s.tenant_id = r.GetString(0, 1);
  if (!r.IsNull(0, 2)) s.workspace_id = r.GetInt(0, 2);
  s.root_digest = r.GetString(0, 3);
  Result<SnapshotState> state = ParseSnapshotState(r.Get(0, 4));
  if (!state.ok()) return state.status().WithContext("snapshot " + Id(id));
  s.state = *state;
  s.pinned = r.GetBool(0, 5);
  s.age_secs = r.GetDouble(0, 6);
  s.holds_refs = r.GetBool(0, 7);
  return std::optional<Snapshot>(std::move(s));
}

Result<ValidatedCommit> CommitValidated(db::PgConn& conn, const Snapshot& snap,
                                        const cas::ClosureReport& report,
                                        const ReadMark& mark,
                                        const cas::ClosureObjects& unregistered,
                                        const cas::ClosureLimits& limits) {
  ValidatedCommit out;
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(LockTenantDag(conn, snap.tenant_id));
    AWC_ASSIGN_OR_RETURN(db::PgResult locked,
                         conn.ExecCached(sql::kLockValidating, {Id(snap.id)}));
    if (locked.rows() == 0) return Status::OK();
    AWC_ASSIGN_OR_RETURN(bool trust_holds,
                         TrustStillHolds(conn, snap.tenant_id, report));
    if (!trust_holds) {
      return Status::Transient(
          "a subtree the walk trusted is no longer referenced");
    }
    AWC_RETURN_IF_ERROR(RecordWalk(conn, snap, report, mark, &unregistered));
    out.objects = static_cast<int64_t>(report.objects.size());
    out.bytes = static_cast<int64_t>(report.bytes);
    if (report.trusted > 0) {
      // What lies under the trusted subtrees is counted from their
      // recorded entries, and held to the limits a full walk applies.
      AWC_ASSIGN_OR_RETURN(
          DagClosureStats stats,
          ClosureStatsOf(conn, snap.tenant_id, snap.root_digest));
      out.objects = stats.objects;
      out.bytes = stats.bytes;
      if (stats.max_manifest_depth > limits.max_depth) {
        out.verdict = cas::Verdict::kDepthExceeded;
        out.detail = "manifests are nested deeper than " +
                     std::to_string(limits.max_depth) + " levels";
      } else if (static_cast<uint64_t>(stats.objects) > limits.max_objects) {
        out.verdict = cas::Verdict::kTooManyObjects;
        out.detail = "closure has more than " +
                     std::to_string(limits.max_objects) + " objects";
      }
      if (out.verdict != cas::Verdict::kOk) {
        // Undone with the rest of this transaction: the caller fails the
        // snapshot in a transaction of its own.
        return Status::FailedPrecondition(out.detail);
      }
    }
    AWC_RETURN_IF_ERROR(
        conn.ExecCached(sql::kSetReady,
                        {Id(snap.id), std::to_string(out.objects),
                         std::to_string(out.bytes)})
            .status());
    JsonObject data;
    data.Str("verdict", "ready")
        .Int("objects", out.objects)
        .Int("bytes", out.bytes)
        .Int("read", static_cast<int64_t>(report.reads))
        .Int("trusted", static_cast<int64_t>(report.trusted));
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.validate",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    out.applied = true;
    return Status::OK();
  });
  if (!s.ok() && out.verdict == cas::Verdict::kOk) return s;
  return out;
}

Result<bool> CommitValidationFailed(db::PgConn& conn, const Snapshot& snap,
                                    const cas::ClosureReport& report) {
  JsonObject failure;
  failure.Str("code", cas::VerdictCode(report.verdict));
  if (report.digest.empty()) {
    failure.Null("digest");
  } else {
    failure.Str("digest", report.digest);
  }
  failure.Str("detail", report.detail);
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn.ExecCached(sql::kSetFailed, {Id(snap.id), failure.Dump()}));
    if (r.rows() == 0) return false;
    JsonObject data;
    data.Str("verdict", "failed").Obj("failure", failure);
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.validate",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
}

Result<std::vector<ClosurePageEntry>> ClosurePage(db::PgConn& conn,
                                                  const Snapshot& snap,
                                                  const std::string& after,
                                                  int limit) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kClosurePage, {Id(snap.id), snap.tenant_id, after,
                                          std::to_string(limit)}));
  std::vector<ClosurePageEntry> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    ClosurePageEntry e;
    e.digest = r.GetString(i, 0);
    if (!r.IsNull(i, 1)) e.size = static_cast<uint64_t>(r.GetInt(i, 1));
    out.push_back(std::move(e));
  }
  return out;
}

Result<bool> CommitScrubClean(db::PgConn& conn, const Snapshot& snap,
                              int64_t objects, int64_t bytes,
                              const cas::ClosureReport* walked,
                              const ReadMark& mark,
                              const std::vector<std::string>& repaired) {
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    // The DAG lock before the snapshot's row, as everywhere.
    if (walked != nullptr) {
      AWC_RETURN_IF_ERROR(LockTenantDag(conn, snap.tenant_id));
    }
    AWC_ASSIGN_OR_RETURN(db::PgResult r,
                         conn.ExecCached(sql::kSetScrubbed, {Id(snap.id)}));
    if (r.rows() == 0) return false;
    bool recorded = false;
    if (walked != nullptr) {
      AWC_ASSIGN_OR_RETURN(db::PgResult held,
                           conn.ExecCached(sql::kHoldRefs, {Id(snap.id)}));
      recorded = held.rows() > 0;
      if (recorded) {
        AWC_RETURN_IF_ERROR(RecordWalk(conn, snap, *walked, mark, nullptr));
        AWC_RETURN_IF_ERROR(
            conn.ExecCached(sql::kDropLegacyClosure, {Id(snap.id)}).status());
      }
    }
    JsonObject data;
    data.Str("verdict", "clean")
        .Int("objects", objects)
        .Int("bytes", bytes)
        .Int("bad", 0);
    if (recorded) data.Bool("recorded", true);
    if (!repaired.empty()) data.Strs("repaired", repaired);
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.scrub",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
}

Result<bool> CommitScrubRestored(db::PgConn& conn, const Snapshot& snap,
                                 int64_t objects, int64_t bytes,
                                 const std::vector<std::string>& repaired) {
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_ASSIGN_OR_RETURN(db::PgResult r,
                         conn.ExecCached(sql::kSetRestored, {Id(snap.id)}));
    if (r.rows() == 0) return false;
    JsonObject data;
    data.Str("verdict", "restored")
        .Int("objects", objects)
        .Int("bytes", bytes)
        .Int("bad", 0)
        .Int("unpinned", r.GetInt(0, 1))
        .Strs("repaired", repaired);
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.scrub",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
}

namespace {

// READY -> DEGRADED for one snapshot, its closure pinned, the audit event;
// false when it is no longer READY. `found_by`: who found the bad objects,
// when it is not this snapshot's own scrub.
Result<bool> Degrade(db::PgConn& conn, const std::string& tenant, int64_t id,
                     const std::vector<std::string>& bad, int64_t objects,
                     int64_t bytes, const DamageFinder& found_by) {
  std::vector<std::string> listed(
      bad.begin(), bad.begin() + static_cast<ptrdiff_t>(
                                     std::min(bad.size(), kMaxListedBad)));
  JsonObject failure;
  failure.Str("code", "decayed")
      .Int("bad_count", static_cast<int64_t>(bad.size()))
      .Strs("bad_digests", listed);
  bool own = !found_by.snapshot && !found_by.reconcile_run;
  if (found_by.snapshot) failure.Int("found_by", *found_by.snapshot);
  if (found_by.reconcile_run) {
    failure.Int("found_by_reconcile", *found_by.reconcile_run);
  }
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kSetDegraded, {Id(id), failure.Dump()}));
  if (r.rows() == 0) return false;
  // Pin the whole closure: what is left of a degraded snapshot is the only
  // copy there is.
  AWC_RETURN_IF_ERROR(
      conn.ExecCached(sql::kPinClosure, {Id(id), tenant}).status());
  JsonObject data;
  data.Str("verdict", "degraded");
  if (own) data.Int("objects", objects).Int("bytes", bytes);
  data.Int("bad", static_cast<int64_t>(bad.size())).Strs("bad_digests", listed);
  if (found_by.snapshot) data.Int("found_by", *found_by.snapshot);
  if (found_by.reconcile_run) {
    data.Int("found_by_reconcile", *found_by.reconcile_run);
  }
  AWC_RETURN_IF_ERROR(RecordAudit(conn, tenant, "snapshot.scrub",
                                  "snapshot/" + Id(id), data.Dump()));
  return true;
}

}  // namespace

Result<std::vector<int64_t>> DegradeReaching(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& bad, const DamageFinder& found_by) {
  AWC_ASSIGN_OR_RETURN(std::vector<DamagedSnapshot> reached,
                       MarkDamaged(conn, tenant, bad));
  std::vector<int64_t> degraded;
  for (const DamagedSnapshot& d : reached) {
    if (found_by.snapshot && d.id == *found_by.snapshot) continue;
    AWC_ASSIGN_OR_RETURN(
        bool done, Degrade(conn, tenant, d.id, d.bad_digests, 0, 0, found_by));
    if (done) degraded.push_back(d.id);
  }
  return degraded;
}

Result<bool> CommitScrubDegraded(db::PgConn& conn, const Snapshot& snap,
                                 const std::vector<cas::BadObject>& bad,
                                 int64_t objects, int64_t bytes,
                                 std::vector<int64_t>* also_degraded) {
  std::vector<std::string> digests;
  for (const cas::BadObject& b : bad) digests.push_back(b.digest);
  std::vector<int64_t> others;
  Result<bool> applied = db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_RETURN_IF_ERROR(LockTenantDag(conn, snap.tenant_id));
    AWC_ASSIGN_OR_RETURN(bool done, Degrade(conn, snap.tenant_id, snap.id,
                                            digests, objects, bytes, {}));
    if (!done) return false;
    AWC_ASSIGN_OR_RETURN(
        others, DegradeReaching(
                    conn, snap.tenant_id, digests,
                    DamageFinder{.snapshot = snap.id, .reconcile_run = {}}));
    return true;
  });
  if (applied.ok() && also_degraded != nullptr) *also_degraded = others;
  return applied;
}

Result<int64_t> InsertSnapshot(db::PgConn& conn, const std::string& tenant,
                               std::optional<int64_t> workspace_id,
                               const std::string& root_digest) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kInsertSnapshot,
                {tenant, db::NumberOrNull(workspace_id), root_digest}));
  return r.GetInt(0, 0);
}

Result<RetentionFacts> LoadRetentionFacts(db::PgConn& conn,
                                          const Snapshot& snap) {
  RetentionFacts facts;
  if (!snap.workspace_id) return facts;
  std::string ws = std::to_string(*snap.workspace_id);
  AWC_ASSIGN_OR_RETURN(db::PgResult w,
                       conn.ExecCached(sql::kLockWorkspaceRetention, {ws}));
  if (w.rows() == 0) return facts;
  Result<WorkspaceState> state = ParseWorkspaceState(w.Get(0, 0));
  if (!state.ok()) return state.status().WithContext("workspace " + ws);
  facts.workspace_state = *state;
  if (!w.IsNull(0, 1)) facts.retention = w.GetString(0, 1);
  AWC_ASSIGN_OR_RETURN(db::PgResult rank,
                       conn.ExecCached(sql::kReadyRank, {ws, Id(snap.id)}));
  facts.rank = rank.GetInt(0, 0);
  return facts;
}

Result<bool> ReleaseSnapshot(db::PgConn& conn, const Snapshot& snap,
                             const std::string& reason, bool even_if_pinned) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kRelease,
                      {Id(snap.id), even_if_pinned ? "true" : "false"}));
  if (r.rows() == 0) return false;
  JsonObject data;
  data.Str("reason", reason);
  AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.released",
                                  "snapshot/" + Id(snap.id), data.Dump()));
  return true;
}

}  // namespace awc::catalog
