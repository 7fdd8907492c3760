// Structured events: the one way awc-worker logs.
//
// Every line awc-worker writes to stderr after startup is one JSON object:
//   {"ts":"2026-11-30T09:44:56.123Z","level":"info","id":"job_81",
//    "msg":"job completed","worker":"host-a-2","kind":"snapshot_validate",...}
// `ts`, `level`, `id`, `msg` and `worker` come first and are always present;
// fields added with Str/Int/Num/Bool follow in the order they were added (an
// added field named like one of those five is ignored; a key added twice
// keeps its first position and its last value). Each line is written with a
// single write(2) so lines of concurrent worker processes never interleave.
// Every string passes through Scrub() (redact.h); bytes that are not UTF-8
// become U+FFFD, and non-finite numbers become null.
//
// Startup errors before the supervisor runs are the exception: they are one
// plain "awc-worker: <error>" line, after which the process exits 1 (see
// daemon/ and docs/observability.md, "Observability").
#ifndef AWC_OBS_LOG_H_
#define AWC_OBS_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace awc::obs {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

Result<LogLevel> ParseLogLevel(std::string_view name);
const char* LogLevelName(LogLevel level);

// Process-wide sink settings. Not thread-safe: set them during startup and
// right after fork(), before events are emitted.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void SetLogWorker(std::string worker);  // the "worker" field of every event
void SetLogFd(int fd);                  // default 2 (stderr)

// Under systemd, when the log descriptor is connected to the journal
// (JOURNAL_STREAM names it), every line starts with its syslog priority,
// "<3>" for errors to "<7>" for debug, so `journalctl -p warning` selects
// by level; the journal strips the prefix. The prefix for `level`, or ""
// when the descriptor is not the journal's. Plain lines written outside
// events (startup errors) use it too.
std::string JournalPriority(LogLevel level);

// Formats a wall-clock time (seconds since the epoch) as the `ts` field,
// rounded to the millisecond: "1970-01-01T00:00:00.000Z".
std::string FormatTimestamp(double epoch_seconds);

class Event {
 public:
  Event(LogLevel level, std::string id, std::string msg);

  Event& Str(std::string_view key, std::string_view value);
  Event& Int(std::string_view key, int64_t value);
  Event& Num(std::string_view key, double value);
  Event& Bool(std::string_view key, bool value);

  // The JSON object for this event at time `epoch_seconds`, without newline.
  std::string Format(double epoch_seconds) const;

  // Writes the event if its level passes the threshold.
  void Emit() const;

 private:
  enum class Type { kStr, kInt, kNum, kBool };
  struct Field {
    std::string key;
    Type type;
    std::string str;
    int64_t i = 0;
    double d = 0;
  };

  LogLevel level_;
  std::string id_;
  std::string msg_;
  std::vector<Field> fields_;
};

// Shorthands for events that are not about one job.
Event Debug(std::string id, std::string msg);
Event Info(std::string id, std::string msg);
Event Warn(std::string id, std::string msg);
Event Error(std::string id, std::string msg);

}  // namespace awc::obs

#endif  // AWC_OBS_LOG_H_
