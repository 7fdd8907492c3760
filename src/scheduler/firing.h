// FireSchedule: one firing of one schedule by the leading scheduler
// (docs/scheduler.md, "Scheduler": why no double fire, catch-up).
//
// Contract:
//  - One transaction: the fence (LeaderLease::Fence), the schedule's row
//    locked while it is still due and unpaused, its planner (or its one
//    job, for an operator schedule), and the record of the run: next_run_at
//    moved to the first instant of its spec after the database's now(),
//    last_run_at, last_result, runs + 1. So a firing either happens whole,
//    under the current token, or not at all; a schedule that is no longer
//    due when locked (another firing, an operator's change) is not fired.
//  - Catch-up: a schedule due for several periods fires once; `missed`
//    counts the periods that firing covers besides its own slot.
//  - prune deletes in batches first, each in its own fenced transaction;
//    the firing's transaction then records what they did.
//  - A planner that fails while the session survives (an SQL error) is a
//    run with result "error", recorded like any other; so is a spec that
//    does not parse (the next attempt is an hour later), and a next_run_at
//    the scheduler cannot compute with (an infinity, a time past 9999; the
//    table's CHECK refuses them, a database without it may hold them):
//    nothing is planned, the run's slot is now, and the next run is the
//    spec's first instant after now.
//  - Errors returned: LeadershipLost() (leader_lease.h) when the token
//    moved; a database error when the session is gone.
#ifndef AWC_SCHEDULER_FIRING_H_
#define AWC_SCHEDULER_FIRING_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/env.h"
#include "common/status.h"
#include "db/pg.h"
#include "scheduler/leader_lease.h"
#include "scheduler/planners.h"
#include "scheduler/scheduler_options.h"

namespace awc::scheduler {

// A spec that does not parse makes its firing an error run whose next
// attempt is this much later.
inline constexpr int64_t kInvalidSpecRetrySecs = 3600;

// A schedule the leader found due.
struct DueSchedule {
  std::string name;
  bool builtin = false;
  // Whether the scheduler can compute with its next_run_at (1970 to 9999,
  // UTC); when not, its firing only records an error run.
  bool time_ok = true;
};

// What one firing did.
struct RunReport {
  std::string schedule;
  int64_t slot_us = 0;  // the instant it fired for (next_run_at)
  int64_t missed = 0;   // periods covered besides the slot (catch-up)
  int64_t next_us = 0;  // its next run
  int64_t due = 0;
  int64_t enqueued = 0;
  bool ok = true;     // result "ok", else "error"
  std::string error;  // why not ok
  std::optional<PruneResult> pruned;
  std::optional<ScrubCoverage> coverage;  // the scrub planner's sample
  double duration_secs = 0;

  const char* result() const { return ok ? "ok" : "error"; }
  // The run as last_result records it (a JSON object).
  std::string ResultJson() const;
};

// What a run did, in a few words, from the last_result it recorded
// (ResultJson()): "ok, 3 of 5 enqueued", "ok, pruned 10 jobs, ...",
// "error: why"; what is not such an object, cut to 60 bytes. awcctl
// schedules list and the console's schedules show it.
std::string RunSummary(const std::string& last_result_json);

// Fires `due` if it is still due; nullopt when it no longer was.
Result<std::optional<RunReport>> FireSchedule(
    db::PgConn& conn, LeaderLease& lease, const DueSchedule& due,
    const SchedulerOptions& options,
    const std::function<Result<bool>()>& checkpoint, Env* env);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_FIRING_H_
