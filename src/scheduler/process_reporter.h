// ProcessReporter: the scheduler process's SchedulerReporter — the process
// title, the shared metrics and the structured events (obs/log.h).
#ifndef AWC_SCHEDULER_PROCESS_REPORTER_H_
#define AWC_SCHEDULER_PROCESS_REPORTER_H_

#include <string>

#include "obs/metrics.h"
#include "scheduler/session.h"

namespace awc::scheduler {

class ProcessReporter : public SchedulerReporter {
 public:
  // `holder` is the lease holder name the events show; `set_title` is
  // false in tests.
  ProcessReporter(obs::Metrics* metrics, std::string holder,
                  bool set_title = true);

  void RoleChanged(SchedulerRole role) override;
  void LeadershipLost(const std::string& during) override;
  void Ran(const RunReport& run) override;
  void DatabaseError(const std::string& step, const Status& error) override;

 private:
  obs::Metrics* metrics_;
  std::string holder_;
  bool set_title_;
  bool leader_ = false;
};

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_PROCESS_REPORTER_H_
