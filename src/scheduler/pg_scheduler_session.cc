#include "scheduler/pg_scheduler_session.h"

#include <unistd.h>

#include <utility>

#include "common/host_name.h"
#include "db/writable.h"
#include "process/loop_wait.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/scheduler_sql.h"
#include "scheduler/schedules.h"

namespace awc::scheduler {

std::string SchedulerId(const std::string& id_base) {
  return id_base + "-scheduler";
}

std::string SchedulerHolder(const std::string& id_base) {
  return SchedulerId(id_base) + "/" + HostName() + "/" +
         std::to_string(getpid());
}

PgSchedulerSession::PgSchedulerSession(struct ev_loop* loop,
                                       std::string conninfo, std::string holder,
                                       SchedulerOptions options, Env* env)
    : loop_(loop),
      conninfo_(std::move(conninfo)),
      holder_(std::move(holder)),
      options_(std::move(options)),
      env_(env) {}

PgSchedulerSession::~PgSchedulerSession() = default;

Status PgSchedulerSession::Connect() {
  AWC_ASSIGN_OR_RETURN(
      conn_, db::PgConn::Connect(conninfo_, SchedulerId(options_.id_base),
                                 options_.pool_mode));
  if (Status writable = db::RequireWritable(*conn_); !writable.ok()) {
    conn_.reset();
    return writable;
  }
  lease_ = std::make_unique<LeaderLease>(conn_.get(), sql::kSchedulerLease,
                                         holder_, options_.lease_secs);
  // A firing that waits for a lock longer than a renewal period fails
  // rather than let its lease run out while it waits.
  AWC_RETURN_IF_ERROR(conn_->SetSessionSetting(
      sql::kLockTimeout,
      std::to_string(options_.lease_secs * 1000 / 3) + "ms"));
  AWC_RETURN_IF_ERROR(conn_->Listen(sql::kListenSchedules));
  return EnsureBuiltins(*conn_);
}

Result<bool> PgSchedulerSession::Acquire() { return lease_->Acquire(); }

Result<bool> PgSchedulerSession::Renew() { return lease_->Renew(); }

Status PgSchedulerSession::Release() { return lease_->Release(); }

Result<std::optional<LeaseClamp>> PgSchedulerSession::ClampLease() {
  return lease_->Clamp();
}

Result<std::vector<ScheduleClamp>> PgSchedulerSession::ClampSchedules() {
  return scheduler::ClampSchedules(*conn_, *lease_);
}

Result<std::vector<DueSchedule>> PgSchedulerSession::Due(
    int limit, const std::vector<std::string>& left_out) {
  return DueSchedules(*conn_, limit, left_out);
}

Result<std::optional<RunReport>> PgSchedulerSession::Fire(
    const DueSchedule& due, const BetweenBatchesFn& checkpoint) {
  return FireSchedule(*conn_, *lease_, due, options_, checkpoint, env_);
}

Result<std::optional<double>> PgSchedulerSession::SecondsToNextDue(
    const std::vector<std::string>& left_out) {
  return scheduler::SecondsToNextDue(*conn_, left_out);
}

Result<std::vector<queue::Depth>> PgSchedulerSession::SampleDepth() {
  return queue::SampleDepth(*conn_);
}

Result<queue::Horizon> PgSchedulerSession::SampleHorizon() {
  return queue::SampleHorizon(*conn_);
}

void PgSchedulerSession::Wait(double seconds, bool wake_on_change,
                              const process::StopFn& stop) {
  // Notifications are drained before and after: a standby's would otherwise
  // pile up in libpq, and one that woke the wait must not cut the next one
  // short. A session that fails here fails its next statement too.
  if (conn_ == nullptr) {
    process::WaitOnLoop(loop_, seconds, -1, &stop);
    return;
  }
  Result<int> before = conn_->DrainNotifications();
  if (wake_on_change && before.ok() && *before > 0) return;
  process::WaitOnLoop(loop_, seconds, wake_on_change ? conn_->Socket() : -1,
                      &stop);
  (void)conn_->DrainNotifications();
}

}  // namespace awc::scheduler
