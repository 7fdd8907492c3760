// SchedulerProcessReporter: the scheduler process's SchedulerReporter — the
// process title, the shared metrics and the structured events (obs/log.h).
//
// A sample of the queue's depth sets awc_queue_jobs{kind,state} and
// awc_queue_oldest_pending_seconds{kind} for every kind the daemon has a
// handler for, and for "unknown" (every other kind, summed; the oldest of
// them): all of them, 0 where the sample found no jobs, so a kind whose
// jobs are gone does not keep its last count, and the labels stay a closed
// set whatever kinds producers insert.
#ifndef AWC_SCHEDULER_SCHEDULER_PROCESS_REPORTER_H_
#define AWC_SCHEDULER_SCHEDULER_PROCESS_REPORTER_H_

#include <string>
#include <vector>

#include "obs/metrics.h"
#include "scheduler/session.h"

namespace awc::scheduler {

class SchedulerProcessReporter : public SchedulerReporter {
 public:
  // `holder` is the lease holder name the events show; `kinds` the job
  // kinds with a handler; `set_title` is false in tests.
  SchedulerProcessReporter(obs::Metrics* metrics, std::string holder,
                           std::vector<std::string> kinds,
                           bool set_title = true);

  void RoleChanged(SchedulerRole role) override;
  void LeadershipLost(const std::string& during) override;
  void Ran(const RunReport& run) override;
  void LeaseClamped(const LeaseClamp& clamp) override;
  void ScheduleClamped(const ScheduleClamp& clamp) override;
  // The scrub planner's sample: the gauges, and a warning when the promise
  // cannot be kept or was not.
  void CoverageSampled(const ScrubCoverage& coverage);
  void DatabaseError(const std::string& step, const Status& error) override;
  // A warning, as a worker's "database unavailable".
  void DatabaseUnavailable(const Status& error, double retry_in_secs) override;
  void QueueSampled(const std::vector<queue::Depth>& depth) override;
  // The gauges; a warning naming the holder once it has held the horizon
  // for kHorizonWarnSecs, again for each new holder, and a note when it
  // lets go (docs/queue.md, "The horizon").
  void HorizonSampled(const queue::Horizon& horizon) override;
  static constexpr double kHorizonWarnSecs = 300;

 private:
  obs::Metrics* metrics_;
  std::string holder_;
  std::vector<std::string> kinds_;
  bool set_title_;
  bool leader_ = false;
  std::string horizon_warned_;  // the holder last warned of, or ""
};

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULER_PROCESS_REPORTER_H_
