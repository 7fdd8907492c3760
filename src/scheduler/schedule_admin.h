// The operator's view and changes of the schedules (`awcctl schedules`;
// docs/scheduler.md, "Scheduler"). Each change runs in one transaction
// that also wakes the leading scheduler (NOTIFY awc_schedules), so a change
// takes effect at once rather than at the leader's next renewal.
//
// Contract: every call first creates the missing built-in schedules
// (schedules.h), so they can be changed before any scheduler ran. Errors
// name the schedule: kNotFound for an unknown one, kInvalidArgument for a
// bad name, spec, kind or payload, kFailedPrecondition for what a schedule
// does not allow (removing a built-in one, running a paused one).
#ifndef AWC_SCHEDULER_SCHEDULE_ADMIN_H_
#define AWC_SCHEDULER_SCHEDULE_ADMIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::scheduler {

struct ScheduleRow {
  std::string name;
  std::string spec;
  std::string kind;  // "" for prune
  std::string payload;
  bool builtin = false;
  bool paused = false;
  std::string next_run_at;  // ISO 8601, UTC; "" when not created yet or
                            // when the scheduler cannot compute with it
  // next_run_at as text when the scheduler cannot compute with it
  // (UnusableNextRun, schedules.h), else "".
  std::string unusable_next_run;
  // When next_run_at lies more than one period of its spec ahead (set so
  // by SQL), where the leading scheduler moves it (ISO 8601, UTC;
  // schedule_clamp.h), else "".
  std::string clamp_to;
  std::string last_run_at;  // "" when never run
  std::string last_result;  // JSON, "" when never run
  int64_t runs = 0;
};

struct LeaseRow {
  std::string holder;
  int64_t token = 0;
  std::string expires_at;  // ISO 8601, UTC
  bool expired = false;
  double ahead_secs = 0;  // from now to expires_at (infinite for infinity)
};

// Schedule names: ^[a-z0-9][a-z0-9_.-]{0,62}$.
Status CheckScheduleName(const std::string& name);

// Built-in schedules first, then by name. Only reads (awcctl's read-only
// verbs, the console): a built-in schedule no scheduler has created yet is
// listed with its default spec, never run and without a next run (it is
// due at once when a scheduler creates it).
Result<std::vector<ScheduleRow>> ListSchedules(db::PgConn& conn);
// Who holds the scheduler's lease; nullopt when nobody ever did.
Result<std::optional<LeaseRow>> SchedulerLeader(db::PgConn& conn);

Status PauseSchedule(db::PgConn& conn, const std::string& name, bool paused);
// Makes it due now (refused while it is paused).
Status RunScheduleNow(db::PgConn& conn, const std::string& name);
// A new spec; the next run is its first instant after now.
Status SetScheduleSpec(db::PgConn& conn, const std::string& name,
                       const std::string& spec);
// An operator schedule: one job of `kind` with `payload` (a JSON object)
// per firing; the first at the spec's first instant after now.
Status AddSchedule(db::PgConn& conn, const std::string& name,
                   const std::string& spec, const std::string& kind,
                   const std::string& payload);
// Removes an operator schedule; built-in ones can only be paused.
Status RemoveSchedule(db::PgConn& conn, const std::string& name);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULE_ADMIN_H_
