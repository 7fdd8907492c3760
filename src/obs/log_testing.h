// CapturedLog: the events the log writes while one lives, for unit tests
// of what a component logs; compiled into awc_testing only
// (docs/ARCHITECTURE.md, "Where code goes").
//
// Contract: from construction to destruction the log's lines go to a pipe
// instead of standard error (obs::SetLogFd); Events() returns those
// written since its last call, each parsed, and a line that is not a JSON
// object as {"unparsed": "<the line>"}, which no field check passes. Lines
// beyond the pipe's buffer (64 KiB) between two calls block the writer:
// read them as a test goes.
#ifndef AWC_OBS_LOG_TESTING_H_
#define AWC_OBS_LOG_TESTING_H_

#include <string>
#include <vector>

#include "common/json.h"

namespace awc::obs {

class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog();
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  // Whether the pipe could be made (else the log is left as it was).
  bool ok() const { return fds_[0] >= 0; }
  std::vector<JsonPtr> Events();

  // The string at `key` of an event, "" when it has none.
  static std::string Str(const json_t* event, const char* key);

 private:
  int fds_[2] = {-1, -1};
};

}  // namespace awc::obs

#endif  // AWC_OBS_LOG_TESTING_H_
