#include "common/iso_time.h"

#include <time.h>

namespace awc {
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

}  // namespace

std::optional<double> ParseIsoUtc(std::string_view iso) {
  // 0123456789012345678
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  if (iso.size() > 20 && iso[19] == '.') {
    std::string_view fraction = iso.substr(20, iso.size() - 21);
    if (fraction.empty() || iso.back() != 'Z' ||
        fraction.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    iso = iso.substr(0, 19);
  } else if (iso.size() != 20 || iso[19] != 'Z') {
    return std::nullopt;
  } else {
    iso = iso.substr(0, 19);
  }
  if (iso[4] != '-' || iso[7] != '-' || iso[10] != 'T' || iso[13] != ':' ||
      iso[16] != ':') {
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

}  // namespace awc
