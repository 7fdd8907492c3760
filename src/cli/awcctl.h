// awcctl: the operator CLI of awc-worker (awcctl(1)). This file is its
// dispatcher: awcctl's own options, the table of verbs (verbs.h), help for
// every verb, and the exit codes of command.h: 0 done, 1 a runtime error
// printed as "awcctl: <error>" (never with a secret), 2 a usage error
// printed with the verb's usage, 3 refused by the production guard.
#ifndef AWC_CLI_AWCCTL_H_
#define AWC_CLI_AWCCTL_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/invocation.h"

namespace awc::cli {

// Runs awcctl with `args` (without the program name) in `io`.
int RunAwcctl(const std::vector<std::string>& args, const Io& io);

// The same over another table of commands (tests).
int RunAwcctl(const std::vector<Command>& commands,
              const std::vector<std::string>& args, const Io& io);

// main(): the process's arguments, streams, terminal and environment.
int AwcctlMain(int argc, char** argv);

}  // namespace awc::cli

#endif  // AWC_CLI_AWCCTL_H_
