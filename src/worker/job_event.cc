#include "worker/job_event.h"

#include <string>

namespace awc::worker {

obs::Event MakeJobEvent(int64_t job_id, std::string_view kind,
                        queue::JobState state, int attempts) {
  std::string_view outcome = queue::OutcomeLabel(state);
  obs::LogLevel level = obs::LogLevel::kWarn;
  const char* msg = "job left in an unexpected state";
  if (outcome == "completed") {
    level = obs::LogLevel::kInfo;
    msg = "job completed";
  } else if (outcome == "retried") {
    level = obs::LogLevel::kWarn;
    msg = "job retried after transient failure";
  } else if (outcome == "failed") {
    level = obs::LogLevel::kError;
    msg = "job dead-lettered";
  } else if (outcome == "cancelled") {
    level = obs::LogLevel::kError;
    msg = "job cancelled";
  }
  obs::Event event(level, "job_" + std::to_string(job_id), msg);
  event.Str("kind", kind)
      .Str("outcome", outcome)
      .Str("state", queue::JobStateName(state))
      .Int("attempts", attempts);
  return event;
}

void ReportJob(obs::Metrics* metrics, const obs::Event& event,
               std::string_view kind, queue::JobState state, double lag_secs,
               double duration_secs) {
  event.Emit();
  if (metrics == nullptr) return;
  metrics->CountJob(kind, queue::OutcomeLabel(state));
  metrics->SetJobLag(kind, lag_secs);
  if (duration_secs >= 0) metrics->ObserveJobDuration(kind, duration_secs);
}

}  // namespace awc::worker
