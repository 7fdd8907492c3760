// JobContext: what a handler may use while it runs one job.
//
// The worker implements it; tests may implement it with fakes. Handlers run
// in the worker's single thread and may block; long ones call Checkpoint()
// at safe points, at least every second or so, so the lease is renewed
// while they make progress and a cancel stops them soon.
#ifndef AWC_HANDLERS_JOB_CONTEXT_H_
#define AWC_HANDLERS_JOB_CONTEXT_H_

#include "common/status.h"
#include "db/pg.h"
#include "handlers/handler_options.h"
#include "obs/metrics.h"
#include "obs/progress.h"
#include "queue/job.h"
#include "store/object_store.h"

struct ev_loop;

namespace awc::handlers {

class JobContext {
 public:
  virtual ~JobContext() = default;

  virtual const queue::Job& job() const = 0;
  // This worker's connection; the claim is already committed, so handlers
  // run their own transactions on it. It stays the same object for the
  // whole run of the handler (a lost connection is replaced only after the
  // handler returns), so handlers may hold on to it.
  virtual db::PgConn& db() = 0;
  // The handlers' share of the configuration.
  virtual const HandlerOptions& options() const = 0;
  // The worker's event loop, for handlers that drive asynchronous I/O.
  virtual struct ev_loop* loop() = 0;
  // The object store of AWC_CAS_URL, opened once per worker process.
  virtual store::ObjectStore& store() = 0;
  // The repair store of AWC_CAS_REPAIR_URL (read-only), or nullptr when
  // none is configured (docs/store.md, "Repair").
  virtual store::ObjectStore* repair_store() { return nullptr; }
  // The shared metrics, where handlers count what they find (verdicts, GC
  // epochs and deletions; docs/observability.md, "Observability").
  virtual obs::Metrics& metrics() = 0;

  // How far the job has got (a scrub's objects and bytes of its closure):
  // the worker shows it in its process title and heartbeat row.
  virtual void Progress(const obs::JobProgress& progress) { (void)progress; }

  // Waits, before maintenance reads of `bytes` in `objects` objects, as
  // long as the host's read budget wants (HandlerOptions::read_budget;
  // process/io_budget.h), renewing the lease meanwhile. Errors as for
  // Checkpoint(). No budget: returns at once.
  virtual Status Pace(uint64_t bytes, uint64_t objects) {
    (void)bytes;
    (void)objects;
    return Status::OK();
  }

  // Renews the lease when a third of it has passed since the claim or the
  // last renewal, and in between asks at most once a second whether the job
  // is still held, so that a cancel stops the handler within about a second
  // (docs/queue.md, "Cancelling a running job"). Returns
  // kFailedPrecondition once the job is no longer held by this worker
  // (cancelled, or reclaimed after the lease ran out): the handler should
  // stop, its outcome will be discarded.
  virtual Status Checkpoint() = 0;
};

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_JOB_CONTEXT_H_
