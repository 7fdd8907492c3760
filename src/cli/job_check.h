// What awcctl knows of a job before it writes one (enqueue, schedules add):
// its kind is one the shipped daemon handles and its payload passes that
// kind's decoder, as the daemon would check them; and, whether or not that
// check is skipped (--force), its kind is within the limits the database
// keeps on every job.
#ifndef AWC_CLI_JOB_CHECK_H_
#define AWC_CLI_JOB_CHECK_H_

#include <cstddef>
#include <string>

#include "common/status.h"

namespace awc::cli {

// The most bytes of a job's kind: the CHECK jobs_kind_at_most_128_bytes of
// awc.jobs (migrations/0003_job_kind_limit.sql) and
// schedules_kind_at_most_128_bytes of awc.schedules
// (migrations/0011_schedule_limits.sql).
inline constexpr size_t kMaxKindBytes = 128;

// kInvalidArgument naming KIND when it is empty or longer than
// kMaxKindBytes. --force does not skip it.
Status CheckKind(const std::string& kind);

// kInvalidArgument naming the unknown kind (and the known ones) or what the
// decoder refused. Callers add how to skip the check (--force).
Status CheckJob(const std::string& kind, const std::string& payload);

}  // namespace awc::cli

#endif  // AWC_CLI_JOB_CHECK_H_
