#include "catalog/catalog_stats.h"

#include "catalog/catalog_sql.h"

namespace awc::catalog {
namespace {

Result<std::vector<StateCount>> Counts(db::PgConn& conn, const char* sql) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql));
  std::vector<StateCount> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({r.GetString(i, 0), r.GetInt(i, 1)});
  }
  return out;
}

}  // namespace

Result<std::vector<StateCount>> SnapshotsByState(db::PgConn& conn) {
  return Counts(conn, sql::kSnapshotStates);
}

Result<std::vector<StateCount>> WorkspacesByState(db::PgConn& conn) {
  return Counts(conn, sql::kWorkspaceStates);
}

}  // namespace awc::catalog
