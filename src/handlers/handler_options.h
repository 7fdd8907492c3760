// HandlerOptions: the settings the built-in handlers use, as the values
// their modules take (built from the configuration by
// options/module_options.h; handlers never see the configuration itself).
#ifndef AWC_HANDLERS_HANDLER_OPTIONS_H_
#define AWC_HANDLERS_HANDLER_OPTIONS_H_

#include <cstdint>

#include "cas/closure.h"
#include "gc/sweep.h"
#include "process/io_budget.h"

namespace awc::handlers {

struct HandlerOptions {
  // snapshot_validate and snapshot_scrub: the closure walk's limits.
  cas::ClosureLimits closure;
  // gc_sweep: grace, batch and canary sizes, dry run, and the GC lock's TTL
  // (the job lease). The handler sets the per-job holder and job_id.
  gc::SweepOptions sweep;
  // workspace_expire: how long a workspace stays EXPIRING.
  int64_t retention_grace_secs = 86400;
  // The host's budget of maintenance reads (scrub, reconciliation,
  // repair): AWC_SCRUB_BUDGET_MB_PER_SEC, AWC_SCRUB_BUDGET_OBJECTS_PER_SEC.
  process::IoRates read_budget;
};

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_HANDLER_OPTIONS_H_
