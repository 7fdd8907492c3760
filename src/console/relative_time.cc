#include "console/relative_time.h"

#include <time.h>

#include <cmath>
#include <cstdio>

namespace awc::console {
namespace {

bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// `when` broken down in UTC, to the second (rounded down); false when it
// is out of range.
bool BrokenDownUtc(double when, struct tm* tm) {
  if (!std::isfinite(when)) return false;
  time_t t = static_cast<time_t>(std::floor(when));
  return gmtime_r(&t, tm) != nullptr;
}

}  // namespace

std::optional<double> ParseIsoUtc(std::string_view iso) {
  // 0123456789012345678
  // YYYY-MM-DDTHH:MM:SSZ
  if (iso.size() != 20 || iso[4] != '-' || iso[7] != '-' || iso[10] != 'T' ||
      iso[13] != ':' || iso[16] != ':' || iso[19] != 'Z') {
    return std::nullopt;
  }
  int y, mo, d, h, mi, s;
  if (!Digits(iso, 0, 4, &y) || !Digits(iso, 5, 2, &mo) ||
      !Digits(iso, 8, 2, &d) || !Digits(iso, 11, 2, &h) ||
      !Digits(iso, 14, 2, &mi) || !Digits(iso, 17, 2, &s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    return std::nullopt;
  }
  struct tm tm = {};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<double>(timegm(&tm));
}

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
