#include "scheduler/schedule_clamp.h"

#include "scheduler/firing.h"
#include "scheduler/scheduler_sql.h"
#include "scheduler/spec.h"

namespace awc::scheduler {

std::optional<int64_t> ClampTarget(std::string_view spec_text, int64_t next_us,
                                   int64_t now_us, int64_t* period_secs) {
  Result<Spec> spec = ParseSpec(spec_text);
  int64_t period = spec.ok() ? spec->period_secs : kInvalidSpecRetrySecs;
  if (period_secs != nullptr) *period_secs = period;
  if (next_us <= now_us + period * kMicros) return std::nullopt;
  return spec.ok() ? NextAfter(*spec, now_us) : now_us;
}

Result<std::vector<ScheduleClamp>> ClampSchedules(db::PgConn& conn,
                                                  LeaderLease& lease) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.ExecCached(sql::kSchedulesAhead, {}));
  std::vector<ScheduleClamp> due;
  std::vector<int64_t> bounds;  // now + the period, as of the read
  for (int i = 0; i < r.rows(); ++i) {
    ScheduleClamp c;
    c.schedule = r.GetString(i, 0);
    c.spec = r.GetString(i, 1);
    c.from_us = r.GetInt(i, 2);
    int64_t now_us = r.GetInt(i, 3);
    std::optional<int64_t> to =
        ClampTarget(c.spec, c.from_us, now_us, &c.period_secs);
    if (!to) continue;
    c.to_us = *to;
    bounds.push_back(now_us + c.period_secs * kMicros);
    due.push_back(std::move(c));
  }
  std::vector<ScheduleClamp> cut;
  if (due.empty()) return cut;
  Status s = db::InTransaction(conn, [&]() -> Status {
    cut.clear();
    AWC_RETURN_IF_ERROR(lease.Fence());
    for (size_t i = 0; i < due.size(); ++i) {
      const ScheduleClamp& c = due[i];
      AWC_ASSIGN_OR_RETURN(
          db::PgResult moved,
          conn.ExecCached(sql::kClampNextRun,
                          {c.schedule, c.spec, std::to_string(bounds[i]),
                           std::to_string(c.to_us)}));
      if (moved.rows() > 0) cut.push_back(c);
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return cut;
}

}  // namespace awc::scheduler
