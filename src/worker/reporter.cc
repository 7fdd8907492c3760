#include "worker/reporter.h"

namespace awc::worker {

const char* WorkerStateName(WorkerState state) {
  switch (state) {
    case WorkerState::kConnecting:
      return "connecting";
    case WorkerState::kIdle:
      return "idle";
    case WorkerState::kBusy:
      return "busy";
    case WorkerState::kStopping:
      break;
  }
  return "stopping";
}

}  // namespace awc::worker
