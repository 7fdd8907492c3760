// The body of /metrics: the shared instruments (metrics.h) and those read
// at scrape time in the master:
//   awc_build_info{version,s3} 1     what this binary is: its version and
//                                    whether it has the s3:// store
//   awc_workers{phase}               workers by phase: connecting, idle,
//                                    busy, stopping from the shared worker
//                                    status table; down, the worker slots of
//                                    the configuration with no process (the
//                                    supervisor's count)
//   process_*                        the master's (process_metrics.h)
#ifndef AWC_OBS_SCRAPE_H_
#define AWC_OBS_SCRAPE_H_

#include <string>

#include "obs/metrics.h"
#include "obs/process_metrics.h"
#include "obs/worker_status.h"

namespace awc::obs {

// `status` may be null (no awc_workers then).
std::string RenderScrape(const Metrics& metrics,
                         const WorkerStatusTable* status, int workers_down,
                         const ProcSource& proc = {});

}  // namespace awc::obs

#endif  // AWC_OBS_SCRAPE_H_
