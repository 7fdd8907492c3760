// PgSchedulerSession: the SchedulerSession of the scheduler process — one
// libpq session (application_name "<AWC_WORKER_ID>-scheduler"), the leader
// lease on it, and the process's libev loop for the waits.
#ifndef AWC_SCHEDULER_PG_SCHEDULER_SESSION_H_
#define AWC_SCHEDULER_PG_SCHEDULER_SESSION_H_

#include <memory>
#include <string>

#include "common/env.h"
#include "db/pg.h"
#include "scheduler/leader_lease.h"
#include "scheduler/scheduler_options.h"
#include "scheduler/session.h"

struct ev_loop;

namespace awc::scheduler {

class PgSchedulerSession : public SchedulerSession {
 public:
  // `conninfo` is DATABASE_URL; `holder` names this process in the lease.
  PgSchedulerSession(struct ev_loop* loop, std::string conninfo,
                     std::string holder, SchedulerOptions options, Env* env);
  ~PgSchedulerSession() override;

  Status Connect() override;
  Result<bool> Acquire() override;
  Result<bool> Renew() override;
  Status Release() override;
  Result<std::optional<LeaseClamp>> ClampLease() override;
  Result<std::vector<ScheduleClamp>> ClampSchedules() override;
  Result<std::vector<DueSchedule>> Due(
      int limit, const std::vector<std::string>& left_out) override;
  Result<std::optional<RunReport>> Fire(
      const DueSchedule& due, const BetweenBatchesFn& checkpoint) override;
  Result<std::optional<double>> SecondsToNextDue(
      const std::vector<std::string>& left_out) override;
  Result<std::vector<queue::Depth>> SampleDepth() override;
  Result<queue::Horizon> SampleHorizon() override;
  void Wait(double seconds, bool wake_on_change,
            const process::StopFn& stop) override;

 private:
  struct ev_loop* loop_;
  std::string conninfo_;
  std::string holder_;
  SchedulerOptions options_;
  Env* env_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<LeaderLease> lease_;
};

// The lease holder of this process: "<id_base>-scheduler/<host>/<pid>",
// unique per process, so a restarted scheduler never mistakes an earlier
// one's lease for its own.
std::string SchedulerHolder(const std::string& id_base);
// Its session's application_name and its events' "worker" field.
std::string SchedulerId(const std::string& id_base);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_PG_SCHEDULER_SESSION_H_
