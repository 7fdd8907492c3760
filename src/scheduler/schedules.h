// The scheduler's reads of awc.schedules, and the built-in rows
// (docs/scheduler.md, "Scheduler"). Firing is firing.h; the operator's
// changes are schedule_admin.h.
#ifndef AWC_SCHEDULER_SCHEDULES_H_
#define AWC_SCHEDULER_SCHEDULES_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "scheduler/firing.h"

namespace awc::scheduler {

// Creates the built-in schedules that do not exist yet (planners.h), due
// at once. A row that exists is never changed: after its creation the
// operator owns its spec and its pause.
Status EnsureBuiltins(db::PgConn& conn);

// The built-in schedules (planners.h) as the $1 names, $2 specs and $3
// kinds ('' for none) of sql::kEnsureBuiltins and sql::kListSchedules.
db::Params BuiltinParams();

// Up to `limit` due, unpaused schedules but those named in `left_out`, the
// longest due first.
Result<std::vector<DueSchedule>> DueSchedules(
    db::PgConn& conn, int limit, const std::vector<std::string>& left_out);

// What is wrong with a next_run_at of `text` that the scheduler cannot
// compute with (outside 1970 to 9999, UTC; sql::kDueSchedules): its firing
// is an error run saying so, and awcctl schedules list marks it.
std::string UnusableNextRun(const std::string& text);

// Seconds until the next unpaused schedule but those named in `left_out`
// is due (<= 0: one is); nullopt when there is none.
Result<std::optional<double>> SecondsToNextDue(
    db::PgConn& conn, const std::vector<std::string>& left_out);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULES_H_
