#include "queue/admin.h"

#include "common/numbers.h"
#include "queue/queue_sql.h"

namespace awc::queue {

Result<int64_t> Enqueue(db::PgConn& conn, const std::string& kind,
                        const std::string& payload,
                        std::optional<int> max_attempts, double delay_secs) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kEnqueue,
                {kind, payload,
                 max_attempts ? db::Param(std::to_string(*max_attempts))
                              : db::Param(),
                 SecondsText(delay_secs)}));
  return r.GetInt(0, 0);
}

Result<std::vector<JobRow>> ListJobs(db::PgConn& conn, const std::string& state,
                                     const std::string& kind, int limit) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kListJobs, {state, kind, std::to_string(limit)}));
  std::vector<JobRow> out;
  for (int i = 0; i < r.rows(); ++i) {
    JobRow row;
    row.id = r.GetInt(i, 0);
    row.kind = r.GetString(i, 1);
    row.state = r.GetString(i, 2);
    row.attempts = static_cast<int>(r.GetInt(i, 3));
    row.max_attempts = static_cast<int>(r.GetInt(i, 4));
    row.run_at = r.GetString(i, 5);
    row.updated_at = r.GetString(i, 6);
    row.locked_by = r.GetString(i, 7);
    row.last_error = r.GetString(i, 8);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace awc::queue
