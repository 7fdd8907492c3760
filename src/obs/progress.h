// How far a long job has got (a scrub, a reconciliation), as the process
// title, awcctl workers and the console show it (docs/observability.md,
// "Progress").
#ifndef AWC_OBS_PROGRESS_H_
#define AWC_OBS_PROGRESS_H_

#include <cstdint>
#include <string>

namespace awc::obs {

struct JobProgress {
  int64_t objects = 0;
  int64_t objects_total = -1;  // -1: not known
  int64_t bytes = 0;
  int64_t bytes_total = -1;  // -1: not known
};

// One line, printable ASCII: "45% 1.2 GB of 2.6 GB, 12 MB/s, eta 2m" when
// the totals are known, "1.2 GB, 3000 objects, 12 MB/s" when they are not;
// the rate is the average since the job began, `elapsed_secs` ago.
std::string ProgressLine(const JobProgress& p, double elapsed_secs);

// The same as a compact JSON object for the worker's heartbeat row:
// objects, objects_total, bytes, bytes_total (totals null when not known),
// bytes_per_sec, eta_secs (null when not known) and line.
std::string ProgressJson(const JobProgress& p, double elapsed_secs);

}  // namespace awc::obs

#endif  // AWC_OBS_PROGRESS_H_
