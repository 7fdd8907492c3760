#include "catalog/dag.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "catalog/dag_sql.h"
#include "digest/ids.h"

namespace awc::catalog {
namespace {

// A database clock reading as a parameter; "" (none taken) is NULL.
db::Param ClockParam(const std::string& clock) {
  return clock.empty() ? db::Param() : db::Param(clock);
}

// Digests per statement: bounded parameters, and a level of a large
// closure never sits in one array.
constexpr size_t kChunk = 10000;

std::string Hex(const digest::RawDigest& raw) {
  return digest::FormatDigest(raw).substr(7);  // after "sha256:"
}

// One level of an AdjustRefs cascade: digests (a repeat per reference)
// and whether each was reached through an entry naming a manifest.
struct Level {
  std::vector<std::string> digests;
  std::vector<bool> as_manifest;
};

// The recorded manifests a level's change crossed 0 <-> 1 on: the change
// goes on to their entries that name manifests, and, for those whose file
// entries were counted (dropping only), to their file entries too.
struct Crossed {
  std::vector<std::string> manifests;
  std::vector<std::string> counted;
};

// Appends the recorded entries of `manifests` that name manifests
// (`manifest_entries`) or files to `next`.
Status AddEntriesOf(db::PgConn& conn, const std::string& tenant,
                    const std::vector<std::string>& manifests,
                    bool manifest_entries, Level* next) {
  for (size_t i = 0; i < manifests.size(); i += kChunk) {
    std::vector<std::string> part(
        manifests.begin() + static_cast<ptrdiff_t>(i),
        manifests.begin() +
            static_cast<ptrdiff_t>(std::min(manifests.size(), i + kChunk)));
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r, conn.ExecCached(sql::kEntriesOf,
                                        {tenant, db::ArrayLiteral(part),
                                         manifest_entries ? "true" : "false"}));
    for (int row = 0; row < r.rows(); ++row) {
      next->digests.push_back(r.GetString(row, 0));
      next->as_manifest.push_back(r.GetBool(row, 1));
    }
  }
  return Status::OK();
}

// Applies one chunk of a level; adds to `crossed` the recorded manifests
// that went 0 -> 1 (adding) or 1 -> 0 (dropping).
Status ApplyChunk(db::PgConn& conn, const std::string& tenant,
                  const std::vector<std::string>& digests,
                  const std::vector<bool>& as_manifest, int delta,
                  const std::string& read_since, Crossed* crossed) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kAdjustRefs,
                      {tenant, db::ArrayLiteral(digests), std::to_string(delta),
                       db::ArrayLiteral(as_manifest), ClockParam(read_since)}));
  std::set<std::string> found;
  for (int row = 0; row < r.rows(); ++row) {
    std::string digest = r.GetString(row, 0);
    bool deleting = r.Get(row, 1) != "LIVE";
    bool damaged = r.GetBool(row, 2);
    bool recorded = r.GetBool(row, 3);
    int64_t before = r.GetInt(row, 4);
    int64_t after = r.GetInt(row, 5);
    bool reached_as_manifest = r.GetBool(row, 6);
    bool entries_counted = r.GetBool(row, 7);
    if (delta > 0) {
      if (deleting) {
        return Status::Transient("object " + digest +
                                 " is being deleted by GC");
      }
      if (damaged) {
        return Status::Transient("object " + digest +
                                 " was found damaged by a scrub");
      }
      if (before == 0 && reached_as_manifest && !recorded) {
        return Status::Transient("manifest " + digest +
                                 " has no recorded entries");
      }
    }
    bool crossing = delta > 0 ? before == 0 : after == 0;
    if (crossing && recorded) {
      crossed->manifests.push_back(digest);
      if (delta < 0 && entries_counted) crossed->counted.push_back(digest);
    }
    found.insert(std::move(digest));
  }
  if (delta > 0 &&
      found.size() <
          std::set<std::string>(digests.begin(), digests.end()).size()) {
    for (const std::string& d : digests) {
      if (found.count(d) == 0) {
        return Status::Transient("object " + d + " has no inventory row");
      }
    }
  }
  return Status::OK();
}

Status Cascade(db::PgConn& conn, const std::string& tenant, Level level,
               int delta, const std::string& read_since) {
  while (!level.digests.empty()) {
    Crossed crossed;
    for (size_t i = 0; i < level.digests.size(); i += kChunk) {
      size_t end = std::min(level.digests.size(), i + kChunk);
      std::vector<std::string> part(
          level.digests.begin() + static_cast<ptrdiff_t>(i),
          level.digests.begin() + static_cast<ptrdiff_t>(end));
      std::vector<bool> kinds(
          level.as_manifest.begin() + static_cast<ptrdiff_t>(i),
          level.as_manifest.begin() + static_cast<ptrdiff_t>(end));
      AWC_RETURN_IF_ERROR(
          ApplyChunk(conn, tenant, part, kinds, delta, read_since, &crossed));
    }
    Level next;
    AWC_RETURN_IF_ERROR(
        AddEntriesOf(conn, tenant, crossed.manifests, true, &next));
    AWC_RETURN_IF_ERROR(
        AddEntriesOf(conn, tenant, crossed.counted, false, &next));
    level = std::move(next);
  }
  return Status::OK();
}

// Records the entries among `edges` (a manifest's entries together, in the
// order the walk read the manifests) of the manifests in `parents`, each
// (parent, child) once: a digest a manifest names twice is merged here, as
// a manifest if either entry says so.
Status InsertEdges(db::PgConn& conn, const std::string& tenant,
                   const cas::Spooled<cas::ClosureEdge>& edges,
                   const std::set<digest::RawDigest>& recorded) {
  std::vector<std::string> parents, children;
  std::vector<uint64_t> sizes;
  std::vector<bool> kinds;
  auto send = [&]() -> Status {
    if (parents.empty()) return Status::OK();
    Status s =
        conn.ExecCached(
                sql::kInsertEdges,
                {tenant, db::ArrayLiteral(parents), db::ArrayLiteral(children),
                 db::ArrayLiteral(sizes), db::ArrayLiteral(kinds)})
            .status();
    parents.clear();
    children.clear();
    sizes.clear();
    kinds.clear();
    return s;
  };
  // The current manifest's entries by child: (size, names a manifest).
  digest::RawDigest parent{};
  std::map<digest::RawDigest, std::pair<uint64_t, bool>> entries;
  auto flush = [&]() -> Status {
    std::string p = Hex(parent);
    for (const auto& [child, e] : entries) {
      parents.push_back(p);
      children.push_back(Hex(child));
      sizes.push_back(e.first);
      kinds.push_back(e.second);
    }
    entries.clear();
    return parents.size() >= kChunk ? send() : Status::OK();
  };
  AWC_RETURN_IF_ERROR(edges.ForEachBatch(
      kChunk, [&](const std::vector<cas::ClosureEdge>& batch) -> Status {
        for (const cas::ClosureEdge& e : batch) {
          if (recorded.count(e.parent) == 0) continue;
          if (!entries.empty() && e.parent != parent) {
            AWC_RETURN_IF_ERROR(flush());
          }
          parent = e.parent;
          auto [it, fresh] =
              entries.try_emplace(e.child, e.child_size, e.child_manifest);
          if (!fresh) {
            it->second.first = std::max(it->second.first, e.child_size);
            it->second.second = it->second.second || e.child_manifest;
          }
        }
        return Status::OK();
      }));
  AWC_RETURN_IF_ERROR(flush());
  return send();
}

}  // namespace

Status LockTenantDag(db::PgConn& conn, const std::string& tenant) {
  AWC_RETURN_IF_ERROR(conn.ExecCached(sql::kLockTenantDag, {tenant}).status());
  return conn.ExecCached(sql::kBoundRowLockWaits, {}).status();
}

Result<std::vector<ProbedObject>> ProbeObjects(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<cas::ClosureObject>& objs) {
  std::vector<std::string> digests;
  digests.reserve(objs.size());
  for (const cas::ClosureObject& o : objs) digests.push_back(o.digest());
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kProbeObjects, {tenant, db::ArrayLiteral(digests)}));
  struct Row {
    bool has_row;
    uint64_t size;
    bool recorded;
    bool referenced;
    bool live;
  };
  std::map<std::string, Row> rows;
  for (int i = 0; i < r.rows(); ++i) {
    bool has_row = r.GetBool(i, 1);
    rows[r.GetString(i, 0)] =
        has_row ? Row{true, static_cast<uint64_t>(r.GetInt(i, 2)),
                      r.GetBool(i, 3), r.GetBool(i, 4), r.GetBool(i, 5)}
                : Row{false, 0, false, false, false};
  }
  std::vector<ProbedObject> out(objs.size());
  for (size_t i = 0; i < objs.size(); ++i) {
    auto it = rows.find(digests[i]);
    if (it == rows.end()) continue;  // registered, not to be trusted
    const Row& row = it->second;
    if (!row.has_row) {
      out[i].unregistered = true;
    } else if (!row.live) {
      out[i].deleting = true;
    } else {
      // Size 0 on the root means "not declared".
      bool size_ok = objs[i].size == row.size || objs[i].size == 0;
      out[i].trusted =
          size_ok && (!objs[i].is_manifest || (row.recorded && row.referenced));
    }
  }
  return out;
}

Result<std::vector<bool>> Trustable(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<cas::ClosureObject>& objs) {
  AWC_ASSIGN_OR_RETURN(std::vector<ProbedObject> probed,
                       ProbeObjects(conn, tenant, objs));
  std::vector<bool> out(probed.size());
  for (size_t i = 0; i < probed.size(); ++i) out[i] = probed[i].trusted;
  return out;
}

Result<bool> TrustStillHolds(db::PgConn& conn, const std::string& tenant,
                             const cas::ClosureReport& report) {
  if (report.trusted == 0) return true;
  bool holds = true;
  AWC_RETURN_IF_ERROR(report.objects.ForEachBatch(
      kChunk, [&](const std::vector<cas::ClosureObject>& batch) -> Status {
        std::vector<cas::ClosureObject> trusted;
        for (const cas::ClosureObject& o : batch) {
          if (o.trusted) trusted.push_back(o);
        }
        if (trusted.empty() || !holds) return Status::OK();
        AWC_ASSIGN_OR_RETURN(std::vector<bool> still,
                             Trustable(conn, tenant, trusted));
        for (bool t : still) holds = holds && t;
        return Status::OK();
      }));
  return holds;
}

Status RecordManifests(db::PgConn& conn, const std::string& tenant,
                       const cas::ClosureReport& report,
                       const std::string& read_since) {
  // The manifests recorded now (an earlier walk's are recorded already),
  // and those among them that owe their entries a reference.
  std::set<digest::RawDigest> recorded_now;
  std::vector<std::string> owing;
  AWC_RETURN_IF_ERROR(report.manifests_read.ForEachBatch(
      kChunk, [&](const std::vector<digest::RawDigest>& batch) -> Status {
        std::vector<std::string> digests;
        for (const digest::RawDigest& d : batch) {
          digests.push_back(digest::FormatDigest(d));
        }
        AWC_ASSIGN_OR_RETURN(
            db::PgResult r,
            conn.ExecCached(sql::kMarkManifestEntries,
                            {tenant, db::ArrayLiteral(digests)}));
        std::vector<std::string> marked;
        for (int i = 0; i < r.rows(); ++i) {
          marked.push_back(r.GetString(i, 0));
          digest::RawDigest raw{};
          digest::ParseDigest(marked.back(), &raw);
          recorded_now.insert(raw);
          if (r.GetBool(i, 1)) owing.push_back(marked.back());
        }
        if (marked.empty()) return Status::OK();
        return conn
            .ExecCached(sql::kDropStaleEdges,
                        {tenant, db::ArrayLiteral(marked)})
            .status();
      }));
  AWC_RETURN_IF_ERROR(InsertEdges(conn, tenant, report.edges, recorded_now));
  // A manifest that was referenced before its entries were recorded (it
  // was reached as a blob) owes them the reference it gives.
  Level entries;
  AWC_RETURN_IF_ERROR(AddEntriesOf(conn, tenant, owing, true, &entries));
  return Cascade(conn, tenant, std::move(entries), +1, read_since);
}

Status AdjustRefs(db::PgConn& conn, const std::string& tenant,
                  const std::vector<std::string>& digests, int delta,
                  const std::string& read_since) {
  Level level;
  level.digests = digests;
  // A root is a manifest: it must have its entries recorded to gain a
  // reference.
  level.as_manifest.assign(digests.size(), true);
  return Cascade(conn, tenant, std::move(level), delta, read_since);
}

Result<int64_t> CountFileEntries(db::PgConn& conn, const std::string& tenant,
                                 int64_t max_manifests) {
  return db::InTransactionResult(conn, [&]() -> Result<int64_t> {
    AWC_RETURN_IF_ERROR(LockTenantDag(conn, tenant));
    AWC_ASSIGN_OR_RETURN(
        db::PgResult taken,
        conn.ExecCached(sql::kTakeUncounted,
                        {tenant, std::to_string(max_manifests)}));
    std::vector<std::string> manifests;
    for (int i = 0; i < taken.rows(); ++i) {
      manifests.push_back(taken.GetString(i, 0));
    }
    if (manifests.empty()) return int64_t{0};
    std::string list = db::ArrayLiteral(manifests);
    AWC_RETURN_IF_ERROR(
        conn.ExecCached(sql::kCountFileEntries, {tenant, list}).status());
    AWC_RETURN_IF_ERROR(
        conn.ExecCached(sql::kMarkEntriesCounted, {tenant, list}).status());
    return static_cast<int64_t>(manifests.size());
  });
}

Result<DagClosureStats> ClosureStatsOf(db::PgConn& conn,
                                       const std::string& tenant,
                                       const std::string& root) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kDagClosureStats, {tenant, root}));
  DagClosureStats stats;
  stats.objects = r.GetInt(0, 0);
  stats.bytes = r.GetInt(0, 1);
  stats.max_manifest_depth = static_cast<int>(r.GetInt(0, 2));
  return stats;
}

Status ForEachRecordedObject(
    db::PgConn& conn, const std::string& tenant, const std::string& root,
    int64_t fresh_secs, const std::string& fresh_since,
    const std::function<Status(const RecordedObject&)>& fn) {
  return conn.ExecEachRow(
      sql::kDagClosure,
      {tenant, root, std::to_string(fresh_secs), ClockParam(fresh_since)},
      [&](const db::PgResult& r) -> Status {
        RecordedObject o;
        o.digest = r.GetString(0, 0);
        if (!r.IsNull(0, 1)) o.size = static_cast<uint64_t>(r.GetInt(0, 1));
        o.fresh = r.GetBool(0, 2);
        return fn(o);
      });
}

Result<std::string> DatabaseClock(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.ExecCached(sql::kClock, {}));
  return r.GetString(0, 0);
}

Status MarkVerified(db::PgConn& conn, const std::string& tenant,
                    const std::vector<std::string>& digests,
                    const std::string& read_since) {
  if (digests.empty()) return Status::OK();
  return conn
      .ExecCached(sql::kMarkVerified,
                  {tenant, db::ArrayLiteral(digests), read_since})
      .status();
}

Status ClearDamaged(db::PgConn& conn, const std::string& tenant,
                    const std::vector<std::string>& digests,
                    const std::string& read_since) {
  if (digests.empty()) return Status::OK();
  return conn
      .ExecCached(sql::kClearDamaged,
                  {tenant, db::ArrayLiteral(digests), read_since})
      .status();
}

Result<int64_t> DropStrayRootRefs(db::PgConn& conn, const std::string& tenant) {
  std::vector<std::string> roots;
  for (const char* stmt : {sql::kTakeStrayRootRefs, sql::kTakeDroppedRoots}) {
    AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.ExecCached(stmt, {tenant}));
    for (int i = 0; i < r.rows(); ++i) roots.push_back(r.GetString(i, 0));
  }
  if (!roots.empty()) AWC_RETURN_IF_ERROR(AdjustRefs(conn, tenant, roots, -1));
  return static_cast<int64_t>(roots.size());
}

Result<int64_t> DropStrayRootRefsNow(db::PgConn& conn,
                                     const std::string& tenant) {
  return db::InTransactionResult(conn, [&]() -> Result<int64_t> {
    AWC_RETURN_IF_ERROR(LockTenantDag(conn, tenant));
    return DropStrayRootRefs(conn, tenant);
  });
}

Result<std::vector<DamagedSnapshot>> MarkDamaged(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& bad_digests) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r, conn.ExecCached(sql::kMarkDamaged,
                                      {tenant, db::ArrayLiteral(bad_digests)}));
  std::vector<DamagedSnapshot> out;
  for (int i = 0; i < r.rows(); ++i) {
    int64_t id = r.GetInt(i, 0);
    if (out.empty() || out.back().id != id) out.push_back({id, {}});
    out.back().bad_digests.push_back(r.GetString(i, 1));
  }
  return out;
}

}  // namespace awc::catalog
