#include "worker/job_event.h"

#include <string>

namespace awc::worker {

const char* JobOutcome(queue::JobState state, bool deferred) {
  return deferred ? "deferred" : queue::OutcomeLabel(state);
}

obs::Event MakeJobEvent(int64_t job_id, std::string_view kind,
                        queue::JobState state, int attempts, bool deferred) {
  obs::LogLevel level = obs::LogLevel::kWarn;
  const char* msg = "job left in an unexpected state";
  switch (state) {
    case queue::JobState::kCompleted:
      level = obs::LogLevel::kInfo;
      msg = "job completed";
      break;
    case queue::JobState::kPending:
      level = obs::LogLevel::kWarn;
      msg = "job retried after transient failure";
      break;
    case queue::JobState::kFailed:
      level = obs::LogLevel::kError;
      msg = "job dead-lettered";
      break;
    case queue::JobState::kCancelled:
      level = obs::LogLevel::kError;
      msg = "job cancelled";
      break;
    case queue::JobState::kRunning:
    case queue::JobState::kOther:
      break;
  }
  if (deferred) {
    level = obs::LogLevel::kInfo;
    msg = "job deferred";
  }
  obs::Event event(level, "job_" + std::to_string(job_id), msg);
  event.Str("kind", kind)
      .Str("outcome", JobOutcome(state, deferred))
      .Str("state", queue::JobStateName(state))
      .Int("attempts", attempts);
  return event;
}

void ReportJob(obs::Metrics& metrics, const obs::Event& event,
               std::string_view kind, std::string_view outcome, double lag_secs,
               double duration_secs) {
  metrics.CountJob(kind, outcome);
  metrics.SetJobLag(kind, lag_secs);
  if (duration_secs >= 0) metrics.ObserveJobDuration(kind, duration_secs);
  event.Emit();
}

}  // namespace awc::worker
