#include "console/relative_time.h"

#include <time.h>

#include <cmath>
#include <cstdio>

namespace awc::console {
namespace {

// `when` broken down in UTC, to the second (rounded down); false when it
// is out of range.
bool BrokenDownUtc(double when, struct tm* tm) {
  if (!std::isfinite(when)) return false;
  time_t t = static_cast<time_t>(std::floor(when));
  return gmtime_r(&t, tm) != nullptr;
}

}  // namespace

std::string Duration(double secs) {
  double a = std::fabs(secs);
  if (!std::isfinite(a)) return "?";
  struct Unit {
    double size;
    const char* name;
  };
  static const Unit kUnits[] = {{86400, "d"}, {3600, "h"}, {60, "min"}};
  for (const Unit& u : kUnits) {
    if (a >= u.size) {
      return std::to_string(static_cast<int64_t>(a / u.size)) + " " + u.name;
    }
  }
  return std::to_string(static_cast<int64_t>(a)) + " s";
}

std::string Relative(double then, double now) {
  double d = now - then;
  if (std::fabs(d) < 1) return "just now";
  return d > 0 ? Duration(d) + " ago" : "in " + Duration(d);
}

namespace {

enum class UtcForm { kReadable, kIso };

std::string FormatUtc(double when, UtcForm form) {
  struct tm tm;
  if (!BrokenDownUtc(when, &tm)) return "?";
  char buf[40];
  if (form == UtcForm::kIso) {
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  } else {
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  }
  return buf;
}

}  // namespace

std::string AbsoluteUtc(double when) {
  return FormatUtc(when, UtcForm::kReadable);
}

std::string IsoUtc(double when) { return FormatUtc(when, UtcForm::kIso); }

}  // namespace awc::console
