#include "scheduler/scheduler_process.h"

#include <ev.h>

#include "obs/log.h"
#include "process/child_process.h"
#include "scheduler/pg_scheduler_session.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_process_reporter.h"

namespace awc::scheduler {
namespace {

int RunOnLoop(const SchedulerProcessDeps& deps, struct ev_loop* loop) {
  obs::SetLogWorker(SchedulerId(deps.options.id_base));
  std::string holder = SchedulerHolder(deps.options.id_base);
  SchedulerProcessReporter reporter(deps.metrics, holder, deps.kinds);
  PgSchedulerSession session(loop, deps.database_url, holder, deps.options,
                             Env::Default());
  Scheduler scheduler(SchedulerDeps{.options = deps.options,
                                    .session = &session,
                                    .reporter = &reporter,
                                    .env = Env::Default(),
                                    .stop_requested = &process::StopRequested});
  return scheduler.Run();
}

}  // namespace

int RunSchedulerProcess(const SchedulerProcessDeps& deps) {
  return process::RunChildProcess(
      [&](struct ev_loop* loop) { return RunOnLoop(deps, loop); });
}

}  // namespace awc::scheduler
