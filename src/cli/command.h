// The verbs of awcctl: what each one declares (its name, arguments, options
// and help) so that the dispatcher (awcctl.cc) can parse, document and run
// every verb the same way; awcctl(1) and docs/console.md, "awcctl".
//
// Adding a verb: write its Command in a verb file (cli/<group>_cmd.cc, a run
// function over an Invocation), list it in that file's Add…Commands()
// (verbs.h), and add that function to the table in awcctl.cc.
#ifndef AWC_CLI_COMMAND_H_
#define AWC_CLI_COMMAND_H_

#include <vector>

namespace awc::cli {

// Exit codes (awcctl(1), EXIT STATUS).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;    // a runtime error, or not healthy
inline constexpr int kExitUsage = 2;    // bad arguments
inline constexpr int kExitRefused = 3;  // refused by the production guard

// One option of a verb, besides the common ones (--help, and --json and
// --yes where the verb takes them).
struct Option {
  const char* name;          // long name without "--": "state"
  const char* value;         // its value's name ("S"), or nullptr for a flag
  const char* help;          // one line
  bool repeatable = false;   // may be given more than once
  char letter = 0;           // also "-<letter>" ('h' for help), or none
  bool letter_only = false;  // only "-<letter>": no long name (-c)
};

class Invocation;

struct Command {
  const char* name;     // the words after awcctl: "jobs list"
  const char* args;     // the synopsis after the name: "[--state S] ..."
  const char* summary;  // one line, for `awcctl help`
  const char* help;     // what `awcctl NAME --help` adds; may be ""
  std::vector<Option> options;
  int min_args = 0;      // positional arguments
  int max_args = 0;      // -1: no bound
  bool json = false;     // takes --json
  bool changes = false;  // may change the database: takes --yes
  // Also runs for its group's word alone ("awcctl jobs --state FAILED" is
  // "awcctl jobs list --state FAILED").
  bool bare = false;
  int (*run)(Invocation& inv) = nullptr;
};

}  // namespace awc::cli

#endif  // AWC_CLI_COMMAND_H_
