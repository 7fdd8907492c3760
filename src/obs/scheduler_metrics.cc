// The names of the queue's sampled states (awc_queue_jobs{state}).
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

}  // namespace awc::obs
