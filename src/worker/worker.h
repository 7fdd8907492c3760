// Worker: the body of one worker process (a child of the supervisor).
//
// Contract:
//  - Single-threaded: one libpq connection (application_name = the worker
//    id, AWC_WORKER_ID-<n>), one libev loop and one object store of its own
//    (opened at start; failing to open it exits 1 and the supervisor
//    restarts the worker with backoff).
//  - Loop: claim a ready job, run its handler, record the outcome, repeat;
//    when nothing is ready, wait for a NOTIFY on awc_jobs or the poll
//    interval, whichever comes first. Expired leases are reclaimed between
//    claims at most once per reclaim interval.
//  - The lease of the job in flight is renewed every lease/3: at the
//    handler's checkpoints, and from a timer while the handler waits on the
//    event loop (S3 transfers).
//  - SIGTERM/SIGINT: stop claiming, finish the job in flight, record it,
//    return 0. SIGQUIT: exit at once (stop_flag.h).
//  - A lost database connection is re-established with backoff; an outcome
//    that could not be recorded is retried on the new connection for as
//    long as the lease lasts, then left to lease expiry.
//  - Status for the parent goes to the shared WorkerStatusTable; metrics to
//    the shared Metrics; one event per processed job to stderr.
#ifndef AWC_WORKER_WORKER_H_
#define AWC_WORKER_WORKER_H_

#include <ev.h>

#include <memory>
#include <optional>
#include <string>

#include "config/settings.h"
#include "db/pg.h"
#include "handlers/handler_options.h"
#include "handlers/registry.h"
#include "obs/metrics.h"
#include "queue/job_queue.h"
#include "store/object_store.h"
#include "store/s3_options.h"
#include "store/store_url.h"
#include "supervisor/worker_status.h"

namespace awc::worker {

struct WorkerDeps {
  const config::Settings* settings;
  const handlers::Registry* registry;
  const handlers::HandlerOptions* handler_options;  // what options() returns
  const store::StoreUrl* store_url;
  const store::S3Options* s3_options;
  obs::Metrics* metrics;                  // may be null
  supervisor::WorkerStatusTable* status;  // may be null
};

class Worker {
 public:
  // `slot` is 0-based; the worker id is "<AWC_WORKER_ID>-<slot + 1>".
  Worker(WorkerDeps deps, int slot);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs until stopped; returns the process exit code.
  int Run();

  const std::string& id() const { return id_; }

 private:
  class Context;

  bool EnsureConnected();
  void DropConnection(const Status& why);
  void OnDatabaseError(const Status& s, const char* step);
  void MaybeReclaim();
  // Runs `job`, records its outcome and, unless stopping, claims the next
  // job in the same transaction into `next`.
  void RunJob(const queue::Job& job, std::optional<queue::Job>* next);
  // Records with retries until the lease ends; nullopt when it could not.
  std::optional<queue::JobQueue::Finished> RecordOutcome(
      const queue::Job& job, const queue::Outcome& outcome, double lease_end);
  // Waits `seconds`, or less when the database socket becomes readable
  // (watch_socket) or a stop is requested (interruptible).
  void Wait(double seconds, bool watch_socket, bool interruptible = true);
  void SetPhase(supervisor::WorkerPhase phase, int64_t job_id = 0);
  void SetTitle(const std::string& what);
  static void OnRenewTimer(struct ev_loop* loop, ev_timer* w, int revents);

  WorkerDeps deps_;
  int slot_;
  std::string id_;
  struct ev_loop* loop_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
  double reconnect_backoff_ = 0;
  double next_reclaim_ = 0;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_H_
