#include "scheduler/schedules.h"

#include <string>

#include "scheduler/planners.h"
#include "scheduler/scheduler_sql.h"

namespace awc::scheduler {

db::Params BuiltinParams() {
  std::vector<std::string> names, specs, kinds;
  for (const BuiltinSchedule& b : BuiltinSchedules()) {
    names.push_back(b.name);
    specs.push_back(b.spec);
    kinds.push_back(b.kind);
  }
  return {db::ArrayLiteral(names), db::ArrayLiteral(specs),
          db::ArrayLiteral(kinds)};
}

Status EnsureBuiltins(db::PgConn& conn) {
  return conn.Exec(sql::kEnsureBuiltins, BuiltinParams()).status();
}

Result<std::vector<DueSchedule>> DueSchedules(
    db::PgConn& conn, int limit, const std::vector<std::string>& left_out) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kDueSchedules,
                      {std::to_string(limit), db::ArrayLiteral(left_out)}));
  std::vector<DueSchedule> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({r.GetString(i, 0), r.GetBool(i, 1), r.GetBool(i, 2)});
  }
  return out;
}

std::string UnusableNextRun(const std::string& text) {
  return "next_run_at " + text +
         " is not a time the scheduler can fire at (1970 to 9999, UTC)";
}

Result<std::optional<double>> SecondsToNextDue(
    db::PgConn& conn, const std::vector<std::string>& left_out) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kSecondsToNextDue, {db::ArrayLiteral(left_out)}));
  if (r.rows() == 0 || r.IsNull(0, 0)) return std::optional<double>();
  return std::optional<double>(r.GetDouble(0, 0));
}

}  // namespace awc::scheduler
