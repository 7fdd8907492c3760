#include "catalog/objects.h"

#include <set>

#include "catalog/catalog_sql.h"

namespace awc::catalog {

Result<std::map<std::string, ObjectState>> InventoryStates(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kInventoryStates, {tenant, db::ArrayLiteral(digests)}));
  std::map<std::string, ObjectState> out;
  for (int i = 0; i < r.rows(); ++i) {
    AWC_ASSIGN_OR_RETURN(ObjectState state, ParseObjectState(r.Get(i, 1)));
    out[r.GetString(i, 0)] = state;
  }
  return out;
}

Result<std::vector<std::string>> RegisterObjects(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests, const std::vector<uint64_t>& sizes,
    const std::vector<bool>& uploaded) {
  std::vector<std::string> ours, deduplicated;
  std::vector<uint64_t> our_sizes;
  for (size_t i = 0; i < digests.size(); ++i) {
    if (uploaded[i]) {
      ours.push_back(digests[i]);
      our_sizes.push_back(sizes[i]);
    } else {
      deduplicated.push_back(digests[i]);
    }
  }
  std::set<std::string> live;
  if (!ours.empty()) {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn.Exec(sql::kRegisterObjects, {tenant, db::ArrayLiteral(ours),
                                          db::ArrayLiteral(our_sizes)}));
    for (int i = 0; i < r.rows(); ++i) live.insert(r.GetString(i, 0));
  }
  if (!deduplicated.empty()) {
    AWC_ASSIGN_OR_RETURN(db::PgResult r,
                         conn.Exec(sql::kTouchLiveObjects,
                                   {tenant, db::ArrayLiteral(deduplicated)}));
    for (int i = 0; i < r.rows(); ++i) live.insert(r.GetString(i, 0));
  }
  std::vector<std::string> lost;
  for (const std::string& d : digests) {
    if (live.count(d) == 0) lost.push_back(d);
  }
  return lost;
}

Status LockObjectRows(db::PgConn& conn, const std::string& tenant,
                      const std::vector<std::string>& digests) {
  if (digests.empty()) return Status::OK();
  return conn.Exec(sql::kLockObjectRows, {tenant, db::ArrayLiteral(digests)})
      .status();
}

Result<std::set<std::string>> ReusableManifests(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& digests) {
  std::set<std::string> out;
  if (digests.empty()) return out;
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kReusableManifests, {tenant, db::ArrayLiteral(digests)}));
  for (int i = 0; i < r.rows(); ++i) out.insert(r.GetString(i, 0));
  return out;
}

Result<std::vector<std::string>> TouchReusedTops(
    db::PgConn& conn, const std::string& tenant,
    const std::vector<std::string>& tops) {
  std::set<std::string> touched;
  if (!tops.empty()) {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn.Exec(sql::kTouchReusedTops, {tenant, db::ArrayLiteral(tops)}));
    for (int i = 0; i < r.rows(); ++i) touched.insert(r.GetString(i, 0));
  }
  std::vector<std::string> lost;
  for (const std::string& d : tops) {
    if (touched.count(d) == 0) lost.push_back(d);
  }
  return lost;
}

Result<std::optional<ObjectState>> LockObjectRow(db::PgConn& conn,
                                                 const std::string& tenant,
                                                 const std::string& digest) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kLockObjectRow, {tenant, digest}));
  if (r.rows() == 0) return std::optional<ObjectState>();
  AWC_ASSIGN_OR_RETURN(ObjectState state, ParseObjectState(r.Get(0, 0)));
  return std::optional<ObjectState>(state);
}

Result<ReadMark> GcWatermark(db::PgConn& conn, const std::string& tenant) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kGcWatermark, {tenant}));
  return ReadMark{r.GetInt(0, 0), r.GetString(0, 1)};
}

Result<std::string> DeletedSince(db::PgConn& conn, const std::string& tenant,
                                 int64_t gc_watermark,
                                 const std::vector<std::string>& digests,
                                 std::optional<bool>* epochs_since) {
  std::string mark = std::to_string(gc_watermark);
  if (!epochs_since->has_value()) {
    AWC_ASSIGN_OR_RETURN(db::PgResult e,
                         conn.ExecCached(sql::kEpochSince, {tenant, mark}));
    *epochs_since = e.rows() > 0;
  }
  if (!**epochs_since || digests.empty()) return std::string();
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kDeletedSince,
                      {tenant, mark, db::ArrayLiteral(digests)}));
  return r.rows() > 0 ? r.GetString(0, 0) : std::string();
}

Result<std::string> AddMissingObjects(db::PgConn& conn,
                                      const std::string& tenant,
                                      const std::vector<std::string>& digests,
                                      const std::vector<uint64_t>& sizes,
                                      int64_t gc_watermark) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kAddMissingObjects,
                      {tenant, db::ArrayLiteral(digests),
                       db::ArrayLiteral(sizes), std::to_string(gc_watermark)}));
  return r.rows() > 0 ? r.GetString(0, 0) : std::string();
}

}  // namespace awc::catalog
