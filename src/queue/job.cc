#include "queue/job.h"

#include "common/enum_table.h"

namespace awc::queue {

JobState ParseJobState(std::string_view text) {
  const JobStateRow* row = FindRowNamed(kJobStates, text);
  return row != nullptr ? row->value : JobState::kOther;
}

const char* JobStateName(JobState state) {
  const JobStateRow* row = FindRow(kJobStates, state);
  return row != nullptr ? row->name : "OTHER";
}

const char* OutcomeLabel(JobState state) {
  const JobStateRow* row = FindRow(kJobStates, state);
  return row != nullptr ? row->outcome : "other";
}

const char* DeadReasonName(DeadReason reason) {
  const DeadReasonRow* row = FindRow(kDeadReasons, reason);
  return row != nullptr ? row->name : "";
}

DeadReason ParseDeadReason(std::string_view text) {
  const DeadReasonRow* row = FindRowNamed(kDeadReasons, text);
  return row != nullptr ? row->value : DeadReason::kNone;
}

const char* TakenBackName(TakenBack why) {
  switch (why) {
    case TakenBack::kLeaseExpired:
      return "lease_expired";
    case TakenBack::kHolderSilent:
      return "holder_silent";
    case TakenBack::kWorkerDied:
      return "worker_died";
  }
  return "";
}

const char* QueueStateName(QueueState state) {
  const QueueStateRow* row = FindRow(kQueueStates, state);
  return row != nullptr ? row->name : "unknown";
}

std::array<std::string_view, 1> MetricLabels(QueueState state) {
  return {QueueStateName(state)};
}

}  // namespace awc::queue
