#include "catalog/snapshots.h"

#include <algorithm>

#include "catalog/audit.h"
#include "catalog/catalog_sql.h"
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
  return std::optional<Snapshot>(std::move(s));
}

Result<bool> CommitValidated(db::PgConn& conn, const Snapshot& snap,
                             const cas::ClosureReport& report) {
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_ASSIGN_OR_RETURN(db::PgResult locked,
                         conn.ExecCached(sql::kLockValidating, {Id(snap.id)}));
    if (locked.rows() == 0) return false;
    AWC_RETURN_IF_ERROR(report.objects.ForEachBatch(
        kInsertBatch,
        [&](const std::vector<cas::ClosureObject>& batch) -> Status {
          std::vector<std::string> digests;
          std::vector<uint64_t> sizes;
          digests.reserve(batch.size());
          sizes.reserve(batch.size());
          for (const cas::ClosureObject& o : batch) {
            digests.push_back(o.digest());
            sizes.push_back(o.size);
          }
          // An object GC has started to delete cannot join a READY
          // closure.
          AWC_ASSIGN_OR_RETURN(std::string deleting,
                               FirstDeleting(conn, snap.tenant_id, digests));
          if (!deleting.empty()) {
            return Status::Transient("object " + deleting +
                                     " is being deleted by GC");
          }
          AWC_RETURN_IF_ERROR(
              conn.ExecCached(sql::kInsertClosure,
                              {Id(snap.id), db::ArrayLiteral(digests)})
                  .status());
          return AddMissingObjects(conn, snap.tenant_id, digests, sizes);
        }));
    AWC_RETURN_IF_ERROR(
        conn.ExecCached(sql::kSetReady,
                        {Id(snap.id), std::to_string(report.objects.size()),
                         std::to_string(report.bytes)})
            .status());
    JsonObject data;
    data.Str("verdict", "ready")
        .Int("objects", static_cast<int64_t>(report.objects.size()))
        .Int("bytes", static_cast<int64_t>(report.bytes));
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.validate",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
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
                              int64_t objects, int64_t bytes) {
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_ASSIGN_OR_RETURN(db::PgResult r,
                         conn.ExecCached(sql::kSetScrubbed, {Id(snap.id)}));
    if (r.rows() == 0) return false;
    JsonObject data;
    data.Str("verdict", "clean")
        .Int("objects", objects)
        .Int("bytes", bytes)
        .Int("bad", 0);
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.scrub",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
}

Result<bool> CommitScrubDegraded(db::PgConn& conn, const Snapshot& snap,
                                 const std::vector<cas::BadObject>& bad,
                                 int64_t objects, int64_t bytes) {
  std::vector<std::string> listed;
  JsonObject failure;
  for (size_t i = 0; i < bad.size() && i < kMaxListedBad; ++i) {
    listed.push_back(bad[i].digest);
  }
  failure.Str("code", "decayed")
      .Int("bad_count", static_cast<int64_t>(bad.size()))
      .Strs("bad_digests", listed);
  return db::InTransactionResult(conn, [&]() -> Result<bool> {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn.ExecCached(sql::kSetDegraded, {Id(snap.id), failure.Dump()}));
    if (r.rows() == 0) return false;
    // Pin the whole closure: what is left of a degraded snapshot is the only
    // copy there is.
    AWC_RETURN_IF_ERROR(
        conn.ExecCached(sql::kPinClosure, {Id(snap.id), snap.tenant_id})
            .status());
    JsonObject data;
    data.Str("verdict", "degraded")
        .Int("objects", objects)
        .Int("bytes", bytes)
        .Int("bad", static_cast<int64_t>(bad.size()))
        .Strs("bad_digests", listed);
    AWC_RETURN_IF_ERROR(RecordAudit(conn, snap.tenant_id, "snapshot.scrub",
                                    "snapshot/" + Id(snap.id), data.Dump()));
    return true;
  });
}

Result<int64_t> InsertSnapshot(db::PgConn& conn, const std::string& tenant,
                               std::optional<int64_t> workspace_id,
                               const std::string& root_digest) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kInsertSnapshot,
                {tenant,
                 workspace_id ? db::Param(std::to_string(*workspace_id))
                              : db::Param(),
                 root_digest}));
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
