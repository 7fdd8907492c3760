#include "gc/epochs.h"

#include "gc/gc_sql.h"

namespace awc::gc {

Result<std::vector<EpochSummary>> LastEpochs(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kLastEpochs));
  std::vector<EpochSummary> out;
  for (int i = 0; i < r.rows(); ++i) {
    EpochSummary e;
    e.tenant_id = r.GetString(i, 0);
    e.epoch_id = r.GetInt(i, 1);
    e.state = r.GetString(i, 2);
    e.dry_run = r.GetBool(i, 3);
    e.planned = r.GetInt(i, 4);
    e.deleted = r.GetInt(i, 5);
    e.kept = r.GetInt(i, 6);
    e.created_at = r.GetString(i, 7);
    if (!r.IsNull(i, 8)) e.finished_secs_ago = r.GetDouble(i, 8);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace awc::gc
