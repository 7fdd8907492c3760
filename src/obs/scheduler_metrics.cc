// The names of the queue's sampled states, and the read-backs of the
// scheduler's instruments.
#include "obs/metrics.h"

namespace awc::obs {

const char* QueueStateName(QueueState state) {
  switch (state) {
    case QueueState::kPending:
      return "pending";
    case QueueState::kRunning:
      return "running";
    case QueueState::kFailed:
      return "failed";
  }
  return "unknown";
}

double Metrics::ScheduleRuns(std::string_view schedule,
                             std::string_view result) const {
  return Read(MetricId::kScheduleRuns, {schedule, result});
}

double Metrics::ScheduleEnqueued(std::string_view schedule) const {
  return Read(MetricId::kScheduleEnqueued, {schedule});
}

double Metrics::QueueJobs(std::string_view kind, QueueState state) const {
  return Read(MetricId::kQueueJobs, {kind, QueueStateName(state)});
}

double Metrics::QueueOldestPending(std::string_view kind) const {
  return Read(MetricId::kQueueOldestPending, {kind});
}

}  // namespace awc::obs
