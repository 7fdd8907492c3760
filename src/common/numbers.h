// Numbers as text: the one integer parser for what operators type (settings,
// awcctl arguments) and the one spelling of seconds in SQL parameters.
#ifndef AWC_COMMON_NUMBERS_H_
#define AWC_COMMON_NUMBERS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace awc {

// A decimal integer: an optional '+' or '-' and at least one digit, nothing
// else (no spaces, no trailing text, no hex). Errors are InvalidArgument and
// quote the text but name no setting or option: callers add that context.
//   ""      -> "empty value"
//   "four"  -> "\"four\" is not an integer"
//   "9e99"  -> "\"9e99\" is not an integer"
//   a value beyond int64 -> "\"...\" is too large"
Result<int64_t> ParseInt64(std::string_view text);

// Seconds as the text of a `make_interval(secs => $n::float8)` parameter:
// fixed point with three decimals ("1.500"), so every PostgreSQL reads it
// the same whatever its locale.
std::string SecondsText(double secs);

}  // namespace awc

#endif  // AWC_COMMON_NUMBERS_H_
