#include "obs/log.h"

#include <jansson.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/json.h"
#include "common/redact.h"

namespace awc::obs {
namespace {

// True when `fd` is the stream JOURNAL_STREAM ("<device>:<inode>") names:
// systemd connected it to the journal, which reads a "<N>" prefix of each
// line as its syslog priority.
bool IsJournalStream(int fd) {
  const char* stream = getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev &&
         static_cast<unsigned long long>(st.st_ino) == ino;
}

struct Sink {
  LogLevel level = LogLevel::kInfo;
  std::string worker = "awc-worker";
  int fd = 2;
  bool journal = IsJournalStream(2);
};

Sink& TheSink() {
  static Sink sink;
  return sink;
}

// syslog(3) priorities: LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR.
const char* PriorityPrefix(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "<7>";
    case LogLevel::kInfo:
      return "<6>";
    case LogLevel::kWarn:
      return "<4>";
    case LogLevel::kError:
      return "<3>";
  }
  return "<6>";
}

double WallNow() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

void SetString(json_t* obj, std::string_view key, std::string_view value) {
  std::string clean = ValidUtf8(Scrub(value));
  json_object_set_new(obj, ValidUtf8(key).c_str(),
                      json_stringn(clean.data(), clean.size()));
}

// The fields every event starts with; added fields cannot replace them.
bool IsBaseField(std::string_view key) {
  return key == "ts" || key == "level" || key == "id" || key == "msg" ||
         key == "worker";
}

}  // namespace

Result<LogLevel> ParseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warn" || name == "warning") return LogLevel::kWarn;
  if (name == "error") return LogLevel::kError;
  return Status::InvalidArgument("\"" + std::string(name) +
                                 "\" is not one of debug, info, warn, error");
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

void SetLogLevel(LogLevel level) { TheSink().level = level; }
LogLevel GetLogLevel() { return TheSink().level; }
void SetLogWorker(std::string worker) { TheSink().worker = std::move(worker); }
void SetLogFd(int fd) {
  TheSink().fd = fd;
  TheSink().journal = IsJournalStream(fd);
}

std::string JournalPriority(LogLevel level) {
  return TheSink().journal ? PriorityPrefix(level) : "";
}

std::string FormatTimestamp(double epoch_seconds) {
  // Round to whole milliseconds first, so that .9996 carries into the next
  // second instead of printing .1000 or truncating to .999. Years 1..9999.
  constexpr double kMin = -62135596800.0, kMax = 253402300799.999;
  if (std::isnan(epoch_seconds)) epoch_seconds = 0;
  epoch_seconds = std::clamp(epoch_seconds, kMin, kMax);
  int64_t ms = std::llround(epoch_seconds * 1000.0);
  int64_t secs = ms / 1000;
  int64_t millis = ms % 1000;
  if (millis < 0) {
    millis += 1000;
    secs -= 1;
  }
  time_t t = static_cast<time_t>(secs);
  struct tm tm = {};
  gmtime_r(&t, &tm);
  char buf[96];
  snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
           tm.tm_sec, static_cast<int>(millis));
  return buf;
}

Event::Event(LogLevel level, std::string id, std::string msg)
    : level_(level), id_(std::move(id)), msg_(std::move(msg)) {}

Event& Event::Str(std::string_view key, std::string_view value) {
  fields_.push_back({std::string(key), Type::kStr, std::string(value)});
  return *this;
}

Event& Event::Int(std::string_view key, int64_t value) {
  Field f{std::string(key), Type::kInt, {}};
  f.i = value;
  fields_.push_back(std::move(f));
  return *this;
}

Event& Event::Num(std::string_view key, double value) {
  Field f{std::string(key), Type::kNum, {}};
  f.d = value;
  fields_.push_back(std::move(f));
  return *this;
}

Event& Event::Bool(std::string_view key, bool value) {
  Field f{std::string(key), Type::kBool, {}};
  f.i = value ? 1 : 0;
  fields_.push_back(std::move(f));
  return *this;
}

std::string Event::Format(double epoch_seconds) const {
  json_t* obj = json_object();
  SetString(obj, "ts", FormatTimestamp(epoch_seconds));
  SetString(obj, "level", LogLevelName(level_));
  SetString(obj, "id", id_);
  SetString(obj, "msg", msg_);
  SetString(obj, "worker", TheSink().worker);
  for (const Field& f : fields_) {
    if (IsBaseField(f.key)) continue;
    switch (f.type) {
      case Type::kStr:
        SetString(obj, f.key, f.str);
        break;
      case Type::kInt:
        json_object_set_new(obj, ValidUtf8(f.key).c_str(), json_integer(f.i));
        break;
      case Type::kNum:
        json_object_set_new(obj, ValidUtf8(f.key).c_str(),
                            std::isfinite(f.d) ? json_real(f.d) : json_null());
        break;
      case Type::kBool:
        json_object_set_new(obj, ValidUtf8(f.key).c_str(),
                            json_boolean(f.i != 0));
        break;
    }
  }
  char* text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                   JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6));
  json_decref(obj);
  std::string out = text != nullptr ? text : "{}";
  free(text);
  return out;
}

void Event::Emit() const {
  if (level_ < TheSink().level) return;
  std::string line = JournalPriority(level_) + Format(WallNow());
  line += '\n';
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = write(TheSink().fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to report a logging failure
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

Event Debug(std::string id, std::string msg) {
  return Event(LogLevel::kDebug, std::move(id), std::move(msg));
}
Event Info(std::string id, std::string msg) {
  return Event(LogLevel::kInfo, std::move(id), std::move(msg));
}
Event Warn(std::string id, std::string msg) {
  return Event(LogLevel::kWarn, std::move(id), std::move(msg));
}
Event Error(std::string id, std::string msg) {
  return Event(LogLevel::kError, std::move(id), std::move(msg));
}

}  // namespace awc::obs
