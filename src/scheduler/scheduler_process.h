// RunSchedulerProcess: the body of the scheduler process, the one child of
// the master besides the workers (docs/ARCHITECTURE.md, "Process tree" and
// "Scheduler"). It builds the real parts of a Scheduler and runs it.
//
// Contract:
//  - Signals as a worker's (process/child_process.h): SIGTERM/SIGINT finish the
//    firing in flight, release the lease and return 0; SIGQUIT exits at
//    once (the lease expires).
//  - Process title "awc-worker: scheduler leader" or "... standby"; the
//    role also sets awc_scheduler_leader in the shared metrics, which the
//    master resets when the process exits.
//  - One event per schedule run (id "schedule_<name>", msg "schedule
//    run"), counted in awc_schedule_runs_total{schedule,result} and
//    awc_scheduler_jobs_enqueued_total{schedule}.
//  - The host's sample of the queue's depth, in awc_queue_jobs{kind,state}
//    and awc_queue_oldest_pending_seconds{kind} (scheduler_process_reporter.h).
//  - Returns the exit code of Scheduler::Run(): kExitLeadershipLost is to
//    be restarted at once, other failures with the crash-loop backoff.
#ifndef AWC_SCHEDULER_SCHEDULER_PROCESS_H_
#define AWC_SCHEDULER_SCHEDULER_PROCESS_H_

#include <string>
#include <vector>

#include "obs/metrics.h"
#include "scheduler/scheduler_options.h"

namespace awc::scheduler {

struct SchedulerProcessDeps {
  SchedulerOptions options;
  std::string database_url;
  obs::Metrics* metrics;  // not null
  // The job kinds with a handler: the `kind` labels of the queue's depth.
  std::vector<std::string> kinds;
};

int RunSchedulerProcess(const SchedulerProcessDeps& deps);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULER_PROCESS_H_
