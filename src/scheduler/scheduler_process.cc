#include "scheduler/scheduler_process.h"

#include <ev.h>

#include "obs/log.h"
#include "scheduler/pg_scheduler_session.h"
#include "scheduler/process_reporter.h"
#include "scheduler/scheduler.h"
#include "worker/stop_flag.h"

namespace awc::scheduler {
namespace {

int RunOnLoop(const SchedulerProcessDeps& deps, struct ev_loop* loop) {
  worker::InstallWorkerSignals(loop);
  obs::SetLogWorker(SchedulerId(deps.options.id_base));
  std::string holder = SchedulerHolder(deps.options.id_base);
  ProcessReporter reporter(deps.metrics, holder);
  PgSchedulerSession session(loop, deps.database_url, holder, deps.options,
                             Env::Default());
  Scheduler scheduler(SchedulerDeps{deps.options, &session, &reporter,
                                    Env::Default(), &worker::StopRequested});
  return scheduler.Run();
}

}  // namespace

int RunSchedulerProcess(const SchedulerProcessDeps& deps) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  int code = RunOnLoop(deps, loop);
  ev_loop_destroy(loop);
  return code;
}

}  // namespace awc::scheduler
