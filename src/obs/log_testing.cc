#include "obs/log_testing.h"

#include <fcntl.h>
#include <unistd.h>

#include "obs/log.h"

namespace awc::obs {

CapturedLog::CapturedLog() {
  if (pipe(fds_) != 0) {
    fds_[0] = fds_[1] = -1;
    return;
  }
  fcntl(fds_[0], F_SETFL, O_NONBLOCK);
  SetLogFd(fds_[1]);
}

CapturedLog::~CapturedLog() {
  if (!ok()) return;
  SetLogFd(2);
  close(fds_[0]);
  close(fds_[1]);
}

std::vector<JsonPtr> CapturedLog::Events() {
  std::string out;
  char buf[4096];
  for (ssize_t n; ok() && (n = read(fds_[0], buf, sizeof buf)) > 0;) {
    out.append(buf, static_cast<size_t>(n));
  }
  std::vector<JsonPtr> events;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos;
       start = nl + 1) {
    std::string line = out.substr(start, nl - start);
    Result<JsonPtr> doc = ParseJson(line);
    if (doc.ok() && json_is_object(doc->get())) {
      events.push_back(std::move(*doc));
      continue;
    }
    JsonPtr bad(json_object());
    json_object_set_new(bad.get(), "unparsed", json_string(line.c_str()));
    events.push_back(std::move(bad));
  }
  return events;
}

std::string CapturedLog::Str(const json_t* event, const char* key) {
  const json_t* v = json_object_get(event, key);
  return json_is_string(v) ? json_string_value(v) : "";
}

}  // namespace awc::obs
