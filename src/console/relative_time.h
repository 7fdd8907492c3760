// Times as operators read them on the console: "3 min ago", "in 2 h".
#ifndef AWC_CONSOLE_RELATIVE_TIME_H_
#define AWC_CONSOLE_RELATIVE_TIME_H_

#include <optional>
#include <string>
#include <string_view>

#include "common/iso_time.h"

namespace awc::console {

// A duration in the largest unit that fits, rounded down: "0 s", "59 s",
// "3 min", "5 h", "2 d". Negative values read as their magnitude.
std::string Duration(double secs);

// The distance from `now` to `then`: "just now" within a second, else
// "<Duration> ago" for the past and "in <Duration>" for the future.
std::string Relative(double then, double now);

// "YYYY-MM-DD HH:MM:SS UTC" for a hover text.
std::string AbsoluteUtc(double when);

// "YYYY-MM-DDTHH:MM:SSZ", as ParseIsoUtc() (common/iso_time.h) reads it, for a
// machine-readable time (seconds rounded down).
std::string IsoUtc(double when);

}  // namespace awc::console

#endif  // AWC_CONSOLE_RELATIVE_TIME_H_
