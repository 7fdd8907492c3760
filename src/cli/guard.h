// The production guard: before a verb changes a database marked production
// ([database] production = true, AWC_PRODUCTION=1), the operator types the
// database's name on a terminal (awcctl(1), "PRODUCTION GUARD").
//
// Contract:
//  - With --yes the guard lets the verb go on without asking.
//  - Without a terminal (standard input and standard error are not both
//    terminals: a pipe, cron, CI) it refuses: nobody can be asked.
//  - Otherwise it prompts on standard error and reads one line; the verb
//    goes on only if the line is the database's name.
//  - A refusal is kFailedPrecondition whose message starts "refused: ";
//    awcctl exits 3. Verbs that only read never call the guard.
#ifndef AWC_CLI_GUARD_H_
#define AWC_CLI_GUARD_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::cli {

// Where the guard asks.
class Terminal {
 public:
  virtual ~Terminal() = default;
  // Whether an operator can be asked: stdin and stderr are terminals.
  virtual bool Interactive() = 0;
  virtual void Prompt(std::string_view text) = 0;
  // One line without its newline; nullopt at end of input.
  virtual std::optional<std::string> ReadLine() = 0;
};

// The process's terminal: standard input and standard error.
std::unique_ptr<Terminal> ProcessTerminal();

// OK to go on, or the refusal. `target` is the target URL shown in the
// prompt, `dbname` the name to type.
Status ConfirmProduction(Terminal& terminal, std::string_view target,
                         std::string_view dbname, bool yes);

}  // namespace awc::cli

#endif  // AWC_CLI_GUARD_H_
