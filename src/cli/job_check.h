// What awcctl knows of a job before it writes one (enqueue, schedules add):
// its kind is one the shipped daemon handles and its payload passes that
// kind's decoder, as the daemon would check them.
#ifndef AWC_CLI_JOB_CHECK_H_
#define AWC_CLI_JOB_CHECK_H_

#include <string>

#include "common/status.h"

namespace awc::cli {

// kInvalidArgument naming the unknown kind (and the known ones) or what the
// decoder refused. Callers add how to skip the check (--force).
Status CheckJob(const std::string& kind, const std::string& payload);

}  // namespace awc::cli

#endif  // AWC_CLI_JOB_CHECK_H_
