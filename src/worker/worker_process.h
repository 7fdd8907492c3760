// RunWorkerProcess: the body of one worker process, a child of the
// supervisor. It builds the real parts of a Worker and runs it.
//
// Contract:
//  - Installs the worker's signal handling (process/child_process.h):
//  SIGTERM/SIGINT
//    stop claiming, finish the job in flight, record it and return 0;
//    SIGQUIT exits at once, leaving the job to lease expiry.
//  - Owns one libev loop, one object store (opened from AWC_CAS_URL at
//    start; when it cannot be opened the process exits 1 and the
//    supervisor restarts it with backoff) and one database session whose
//    application_name is the worker id, "<AWC_WORKER_ID>-<slot + 1>".
//  - Reports to the shared status table and metrics (WorkerProcessReporter);
//  its
//    store's requests are counted there too (MeteredStore), and its
//    handlers count their verdicts through JobContext::metrics().
#ifndef AWC_WORKER_WORKER_PROCESS_H_
#define AWC_WORKER_WORKER_PROCESS_H_

#include <string>

#include "handlers/handler_options.h"
#include "handlers/registry.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "process/io_budget.h"
#include "store/s3_options.h"
#include "store/store_url.h"
#include "worker/worker_deps.h"

namespace awc::worker {

// What the master hands each worker process; none of it is null.
struct WorkerProcessDeps {
  WorkerOptions options;
  std::string database_url;
  const handlers::Registry* registry;
  const handlers::HandlerOptions* handler_options;
  // The object store each worker process opens for itself.
  const store::StoreUrl* store_url;
  const store::S3Options* s3_options;
  // The repair store, read-only (nullptr: none) and its S3 settings.
  const store::StoreUrl* repair_url;
  const store::S3Options* repair_s3_options;
  obs::Metrics* metrics;
  obs::WorkerStatusTable* status;
  process::IoBudget* read_budget;  // shared by the tree's workers
};

// Runs the worker of 0-based `slot` until it is stopped; returns the
// process's exit code.
int RunWorkerProcess(const WorkerProcessDeps& deps, int slot);

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_PROCESS_H_
