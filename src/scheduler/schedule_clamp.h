// The bound on how far ahead a schedule's next run may lie
// (docs/scheduler.md, "Clamps"). Neither a firing nor `awcctl schedules`
// ever sets a next_run_at later than the first instant of its spec after
// now, which lies at most one period ahead; one set further by SQL would
// stop its schedule for as long, with nothing said. The leader cuts it.
//
// Contract of ClampSchedules:
//  - A schedule, paused or not, whose next_run_at lies more than one
//    period of its spec ahead of the database's now() is moved to the
//    spec's first instant after now() (so it stays on its grid). A spec
//    that does not parse has for its period the delay its error runs are
//    retried after (kInvalidSpecRetrySecs), and such a row becomes due now,
//    so that its error run says what is wrong with it.
//  - A next_run_at the scheduler cannot compute with (outside 1970 to
//    9999, UTC) is left to the firing, which counts it as due (firing.h).
//  - The rows are read without a lock; what needs cutting is cut in one
//    transaction that starts with the fence (LeaderLease::Fence), so a
//    former leader cuts nothing and gets LeadershipLost(). A row another
//    session holds locked is passed over (looked at again next time), and
//    one whose spec changed since it was read, or whose next run no longer
//    lies beyond the bound, is left as it is.
//  - Returns what it cut, for a warning each; database errors as they are.
#ifndef AWC_SCHEDULER_SCHEDULE_CLAMP_H_
#define AWC_SCHEDULER_SCHEDULE_CLAMP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "scheduler/leader_lease.h"

namespace awc::scheduler {

// A next run ClampSchedules cut.
struct ScheduleClamp {
  std::string schedule;
  std::string spec;
  int64_t period_secs = 0;  // the bound
  int64_t from_us = 0;      // next_run_at as it was (µs since the epoch)
  int64_t to_us = 0;        // as it is now
};

// Where a next run of `next_us` belongs when it lies more than one period
// of `spec` ahead of `now_us` (both µs since the epoch): the spec's first
// instant after now_us, or now_us for a spec that does not parse; nullopt
// when it lies within that bound. `period_secs` gets the bound.
std::optional<int64_t> ClampTarget(std::string_view spec, int64_t next_us,
                                   int64_t now_us,
                                   int64_t* period_secs = nullptr);

Result<std::vector<ScheduleClamp>> ClampSchedules(db::PgConn& conn,
                                                  LeaderLease& lease);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULE_CLAMP_H_
