// AWC_* environment variables that this build does not read: a misspelled
// setting (AWC_WORKER_CONCURENCY=8) would otherwise be ignored without a
// word, where the same typo in the INI file is an error. Both programs warn
// of each one, naming the setting it was likely meant for (awc-worker(8),
// ENVIRONMENT); a warning, not an error, so that a newer release's setting
// left in the environment of an older host does not stop it.
//
// Contract: a name is known when it is a setting of the table
// (setting_spec.cc), the _FILE variant of one that has it, AWC_CONFIG, or a
// variable this tree's tests and benchmarks read and may pass on to the
// programs they run. Only names that start with "AWC_" are considered; the
// value of a variable is never read or shown.
#ifndef AWC_CONFIG_UNKNOWN_VARIABLES_H_
#define AWC_CONFIG_UNKNOWN_VARIABLES_H_

#include <string>
#include <vector>

namespace awc::config {

struct UnknownVariable {
  std::string name;
  std::string nearest;  // the known name it was likely meant to be, or ""

  // "AWC_X is not a setting (ignored); did you mean AWC_Y?", the name's
  // control bytes written \xHH.
  std::string Message() const;
};

// The unknown AWC_* names among `names`, in their order.
std::vector<UnknownVariable> UnknownVariables(
    const std::vector<std::string>& names);

// The names of this process's environment variables.
std::vector<std::string> ProcessEnvNames();

}  // namespace awc::config

#endif  // AWC_CONFIG_UNKNOWN_VARIABLES_H_
