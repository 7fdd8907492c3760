// SchedulerSession: everything the scheduler loop asks of the database —
// the leader lease, the due schedules, their firing — and its one blocking
// wait, behind an interface so the loop can be tested against a fake.
// PgSchedulerSession (pg_scheduler_session.h) is the real one.
//
// Contract:
//  - Connect() opens the one session, refuses one that cannot write
//    (db/writable.h: a standby, default_transaction_read_only), LISTENs on
//    awc_schedules (not behind a transaction pooler,
//    SchedulerOptions::pool_mode) and creates the missing built-in
//    schedules (schedules.h); every other call but Wait() needs it to have
//    succeeded. Errors are database errors; a failed call may leave the
//    session unusable (the loop then ends and the process is restarted).
//  - Acquire, Renew, Release: LeaderLease's; ClampLease: its Clamp(). Fire:
//    FireSchedule's (firing.h), ClampSchedules: schedule_clamp.h's, both
//    including LeadershipLost() when the token moved. Due and
//    SecondsToNextDue leave out the schedules named in `left_out`.
//  - Wait() blocks for `seconds` or less: once `stop()` holds (a stop
//    signal wakes it) or, with `wake_on_change`, once an operator changed a
//    schedule (NOTIFY awc_schedules). Notifications are consumed either way.
//    Without a session (a Connect() that failed) it only waits.
#ifndef AWC_SCHEDULER_SESSION_H_
#define AWC_SCHEDULER_SESSION_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "process/child_process.h"
#include "queue/horizon.h"
#include "queue/queue_stats.h"
#include "scheduler/firing.h"
#include "scheduler/leader_lease.h"
#include "scheduler/schedule_clamp.h"

namespace awc::scheduler {

// Called between the batches of a long firing: true to go on, false to
// stop early (a stop was requested), an error to abandon it.
using BetweenBatchesFn = std::function<Result<bool>()>;

class SchedulerSession {
 public:
  virtual ~SchedulerSession() = default;

  virtual Status Connect() = 0;
  virtual Result<bool> Acquire() = 0;
  virtual Result<bool> Renew() = 0;
  virtual Status Release() = 0;
  virtual Result<std::optional<LeaseClamp>> ClampLease() = 0;
  virtual Result<std::vector<ScheduleClamp>> ClampSchedules() = 0;
  virtual Result<std::vector<DueSchedule>> Due(
      int limit, const std::vector<std::string>& left_out) = 0;
  virtual Result<std::optional<RunReport>> Fire(
      const DueSchedule& due, const BetweenBatchesFn& checkpoint) = 0;
  virtual Result<std::optional<double>> SecondsToNextDue(
      const std::vector<std::string>& left_out) = 0;
  // The queue's depth (queue::SampleDepth).
  virtual Result<std::vector<queue::Depth>> SampleDepth() = 0;
  // What holds the database's horizon back (queue::SampleHorizon).
  virtual Result<queue::Horizon> SampleHorizon() = 0;
  virtual void Wait(double seconds, bool wake_on_change,
                    const process::StopFn& stop) = 0;
};

// What the scheduler reports: its role (the process title and
// awc_scheduler_leader), its runs (an event and metrics each), and why it
// stops leading. Never fails, never blocks on the database.
enum class SchedulerRole { kStandby, kLeader };

class SchedulerReporter {
 public:
  virtual ~SchedulerReporter() = default;
  virtual void RoleChanged(SchedulerRole role) = 0;
  // The lease was found someone else's `during` a firing or a renewal.
  virtual void LeadershipLost(const std::string& during) = 0;
  virtual void Ran(const RunReport& run) = 0;
  // An expiry or a next run cut to its bound (docs/scheduler.md,
  // "Clamps"): a warning each, naming the lease's holder or the schedule.
  virtual void LeaseClamped(const LeaseClamp& clamp) = 0;
  virtual void ScheduleClamped(const ScheduleClamp& clamp) = 0;
  // A sample of the queue's depth (the metrics' awc_queue_* gauges).
  virtual void QueueSampled(const std::vector<queue::Depth>& depth) = 0;
  // A sample of the horizon (awc_database_horizon_*, and a warning while
  // a holder has kept it for long).
  virtual void HorizonSampled(const queue::Horizon& horizon) = 0;
  // A database call of `step` failed; the scheduler exits.
  virtual void DatabaseError(const std::string& step, const Status& error) = 0;
  // The session Connect() opened cannot write (db/writable.h); the next
  // attempt is in `retry_in_secs`.
  virtual void DatabaseUnavailable(const Status& error,
                                   double retry_in_secs) = 0;
};

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SESSION_H_
