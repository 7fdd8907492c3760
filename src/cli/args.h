// Parsing a verb's arguments against its options (command.h), and the
// values operators type: counts, job ids, durations.
//
// Contract:
//  - Options may come before, between and after positional arguments;
//    "--" ends them. A value follows its option ("--kind K") or is joined
//    with '=' ("--kind=K"); an option with a letter may be given as
//    "-<letter>", its value following ("-d URL"). A flag takes no value; an
//    option not repeatable may be given once.
//  - Every error is kInvalidArgument with a message naming the option or
//    the text (a usage error, exit 2).
#ifndef AWC_CLI_ARGS_H_
#define AWC_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "common/status.h"

namespace awc::cli {

class ParsedArgs {
 public:
  bool Has(std::string_view name) const;
  // The option's value ("" when absent or a flag); the last one if repeated.
  std::string Get(std::string_view name) const;
  std::vector<std::string> GetAll(std::string_view name) const;

  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>, std::less<>> options;
};

// Parses `args` (what follows the verb's name) against `options`.
Result<ParsedArgs> ParseArgs(const std::vector<Option>& options,
                             const std::vector<std::string>& args);

// The options a command takes: its own, then --json and --yes where it
// takes them, then --help.
std::vector<Option> AllOptions(const Command& command);

// An integer from `min` to `max`; the error names `what` ("--limit").
Result<int64_t> ParseCount(std::string_view text, std::string_view what,
                           int64_t min, int64_t max);

// Job ids: positive integers; the error quotes the first that is not one.
Result<std::vector<int64_t>> ParseIds(const std::vector<std::string>& texts);

// The longest duration ParseDuration accepts: 100 years, which any
// timestamp the database holds can go back by.
inline constexpr int64_t kMaxDurationSecs = 36500LL * 86400;

// Seconds from "90", "90s", "15m", "12h", "7d" or "2w" (a positive whole
// number and at most one unit), at most kMaxDurationSecs.
Result<double> ParseDuration(std::string_view text);

}  // namespace awc::cli

#endif  // AWC_CLI_ARGS_H_
