#include "common/status.h"

namespace awc {

const char* Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid argument";
    case Code::kNotFound:
      return "not found";
    case Code::kTransient:
      return "transient";
    case Code::kCorruption:
      return "corruption";
    case Code::kFailedPrecondition:
      return "failed precondition";
    case Code::kIoError:
      return "i/o error";
    case Code::kInternal:
      return "internal";
  }
  return "unknown";
}

}  // namespace awc
