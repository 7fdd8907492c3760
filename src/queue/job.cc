#include "queue/job.h"

namespace awc::queue {

JobState ParseJobState(std::string_view text) {
  if (text == "PENDING") return JobState::kPending;
  if (text == "RUNNING") return JobState::kRunning;
  if (text == "COMPLETED") return JobState::kCompleted;
  if (text == "FAILED") return JobState::kFailed;
  if (text == "CANCELLED") return JobState::kCancelled;
  return JobState::kOther;
}

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kPending:
      return "PENDING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
    case JobState::kOther:
      break;
  }
  return "OTHER";
}

const char* DeadReasonName(DeadReason reason) {
  switch (reason) {
    case DeadReason::kMalformedPayload:
      return "malformed_payload";
    case DeadReason::kUnknownKind:
      return "unknown_kind";
    case DeadReason::kSubjectMissing:
      return "subject_missing";
    case DeadReason::kAttemptsExhausted:
      return "attempts_exhausted";
    case DeadReason::kHandlerFailed:
      return "handler_failed";
    case DeadReason::kNone:
      break;
  }
  return "";
}

DeadReason ParseDeadReason(std::string_view text) {
  for (DeadReason r :
       {DeadReason::kMalformedPayload, DeadReason::kUnknownKind,
        DeadReason::kSubjectMissing, DeadReason::kAttemptsExhausted,
        DeadReason::kHandlerFailed}) {
    if (text == DeadReasonName(r)) return r;
  }
  return DeadReason::kNone;
}

const char* OutcomeLabel(JobState state) {
  switch (state) {
    case JobState::kCompleted:
      return "completed";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
    case JobState::kPending:
      return "retried";
    default:
      return "other";
  }
}

}  // namespace awc::queue
