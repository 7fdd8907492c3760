#include "common/numbers.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace awc {

Result<int64_t> ParseInt64(std::string_view text) {
  if (text.empty()) return Status::InvalidArgument("empty value");
  std::string s(text);
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  bool digits = i < s.size();
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') digits = false;
  }
  if (!digits)
    return Status::InvalidArgument("\"" + s + "\" is not an integer");
  errno = 0;
  long long v = strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) {
    return Status::InvalidArgument("\"" + s + "\" is too large");
  }
  return static_cast<int64_t>(v);
}

std::string SecondsText(double secs) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.3f", secs);
  return buf;
}

}  // namespace awc
