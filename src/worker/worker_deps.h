// What a worker loop is built from: its options and the parts it drives.
#ifndef AWC_WORKER_WORKER_DEPS_H_
#define AWC_WORKER_WORKER_DEPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/env.h"
#include "db/pg.h"
#include "fleet/workers.h"
#include "handlers/handler_options.h"
#include "handlers/registry.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "process/io_budget.h"
#include "store/object_store.h"
#include "worker/job_source.h"
#include "worker/reporter.h"

struct ev_loop;

namespace awc::worker {

// The worker's own settings (AWC_WORKER_ID, AWC_WORKER_LEASE_SECS,
// AWC_WORKER_POLL_INTERVAL_MS, AWC_WORKER_HEARTBEAT_SECS (the keepalive),
// AWC_WORKER_HEARTBEAT_TIMEOUT_SECS, AWC_DATABASE_POOL_MODE;
// docs/configuration.md, "Configuration") and the pace of its heartbeats
// (fleet/workers.h).
struct WorkerOptions {
  std::string id_base = "awc-worker";  // worker n is "<id_base>-<n>"
  int64_t lease_secs = 300;
  int64_t poll_interval_ms = 1000;
  // Behind a transaction pooler: no prepared statements, no LISTEN; the
  // poll interval is the only wake-up (db/pg.h).
  db::PoolMode pool_mode = db::PoolMode::kSession;
  double beat_min_secs = fleet::kBeatMinSecs;
  double beat_keepalive_secs = fleet::kBeatKeepaliveSecs;
  // A RUNNING job whose holder wrote no heartbeat for this long is taken
  // back before its lease ends; 0: only at the lease's end.
  int64_t heartbeat_timeout_secs = 30;
};

// The id of the worker in 0-based `slot`: "<id_base>-<slot + 1>", its
// application_name and the locked_by of its jobs.
inline std::string WorkerId(const WorkerOptions& options, int slot) {
  return options.id_base + "-" + std::to_string(slot + 1);
}

// Everything the loop uses; none of it is optional, and all of it outlives
// the Worker.
struct WorkerDeps {
  WorkerOptions options;
  JobSource* source;
  Reporter* reporter;
  const handlers::Registry* registry;
  // What handlers get through their JobContext.
  store::ObjectStore* store;
  struct ev_loop* loop;
  const handlers::HandlerOptions* handler_options;  // JobContext::options()
  obs::Metrics* metrics;                            // JobContext::metrics()
  Env* env;                                         // the clock (NowMonotonic)
  process::StopFn stop_requested;
  // Where the master leaves the jobs of this host's workers that died
  // with one in flight (obs/worker_status.h); none in tests that need not.
  obs::WorkerStatusTable* orphans = nullptr;
  // JobContext::repair_store(): none without AWC_CAS_REPAIR_URL.
  store::ObjectStore* repair_store = nullptr;
  // The host's read budget, shared by its workers (JobContext::Pace);
  // none: no pacing.
  process::IoBudget* read_budget = nullptr;
  // The host's background places (obs/worker_status.h), this worker's
  // slot in them, and the kinds they limit; none: no limit.
  obs::WorkerStatusTable* places = nullptr;
  int slot = 0;
  std::vector<std::string> background_kinds = {};
};

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_DEPS_H_
