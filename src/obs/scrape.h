// The body of /metrics: the families of the shared region (metrics.h), then
// those read at scrape time in the master (metric_families.h, source
// kScrape):
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

#include "obs/metric_families.h"
#include "obs/metrics.h"
#include "obs/process_metrics.h"
#include "obs/prom_text.h"
#include "obs/worker_status.h"

namespace awc::obs {

// `status` may be null (no awc_workers then).
std::string RenderScrape(const Metrics& metrics,
                         const WorkerStatusTable* status, int workers_down,
                         const ProcSource& proc = {});

// The families read at scrape time, from `input`, in table order; a family
// with no sample is left out.
void RenderScraped(PromText* out, const ScrapeInput& input);

}  // namespace awc::obs

#endif  // AWC_OBS_SCRAPE_H_
