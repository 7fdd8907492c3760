#include "catalog/objects.h"

#include <set>

#include "catalog/catalog_sql.h"

namespace awc::catalog {
namespace {

std::string SizesLiteral(const std::vector<uint64_t>& sizes) {
  std::vector<std::string> text;
  text.reserve(sizes.size());
  for (uint64_t s : sizes) text.push_back(std::to_string(s));
  return db::ArrayLiteral(text);
}

}  // namespace

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
    const std::vector<std::string>& digests,
    const std::vector<uint64_t>& sizes) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kRegisterObjects,
                {tenant, db::ArrayLiteral(digests), SizesLiteral(sizes)}));
  std::set<std::string> live;
  for (int i = 0; i < r.rows(); ++i) live.insert(r.GetString(i, 0));
  std::vector<std::string> deleting;
  for (const std::string& d : digests) {
    if (live.count(d) == 0) deleting.push_back(d);
  }
  return deleting;
}

Result<std::string> FirstDeleting(db::PgConn& conn, const std::string& tenant,
                                  const std::vector<std::string>& digests) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kFirstDeleting,
                                       {tenant, db::ArrayLiteral(digests)}));
  return r.rows() > 0 ? r.GetString(0, 0) : std::string();
}

Status AddMissingObjects(db::PgConn& conn, const std::string& tenant,
                         const std::vector<std::string>& digests,
                         const std::vector<uint64_t>& sizes) {
  return conn
      .ExecCached(sql::kAddMissingObjects,
                  {tenant, db::ArrayLiteral(digests), SizesLiteral(sizes)})
      .status();
}

}  // namespace awc::catalog
