// Counts of the catalog for awcctl stats: snapshots and workspaces by state.
#ifndef AWC_CATALOG_CATALOG_STATS_H_
#define AWC_CATALOG_CATALOG_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

struct StateCount {
  std::string state;  // as stored (catalog/states.h names)
  int64_t count = 0;
};

// By state; states without rows are absent.
Result<std::vector<StateCount>> SnapshotsByState(db::PgConn& conn);
Result<std::vector<StateCount>> WorkspacesByState(db::PgConn& conn);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_CATALOG_STATS_H_
