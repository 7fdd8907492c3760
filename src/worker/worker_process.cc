#include "worker/worker_process.h"

#include <ev.h>
#include <unistd.h>

#include <memory>

#include "common/build_version.h"
#include "common/host_name.h"
#include "migrate/embedded_migrations.h"
#include "obs/log.h"
#include "process/child_process.h"
#include "store/marker_checked_store.h"
#include "store/open_store.h"
#include "store/read_only_store.h"
#include "worker/metered_store.h"
#include "worker/pg_job_source.h"
#include "worker/worker.h"
#include "worker/worker_process_reporter.h"

namespace awc::worker {
namespace {

// Who this process is, for its heartbeats.
fleet::WorkerIdentity Identity(const std::string& worker_id, int slot,
                               const handlers::Registry& registry) {
  fleet::WorkerIdentity me;
  me.host = HostName();
  me.pid = getpid();
  me.worker_id = worker_id;
  me.slot = slot + 1;
  me.started_at = Env::Default()->NowWall();
  me.build = BuildVersion();
  me.schema_version = migrate::EmbeddedMigrations().back().version;
  me.kinds = registry.Kinds();
  return me;
}

// The store was checked at startup; it may have gone since (a volume
// unmounted under a running fleet): a worker that finds no marker refuses
// the store and exits, and the supervisor restarts it with backoff,
// logging each exit. A marker that cannot be read for now (a transient
// error) is left to the jobs, which retry. While the worker runs, the
// marker is checked again before anything is called missing
// (store/marker_checked_store.h). `setting` names the URL's setting.
Result<std::unique_ptr<store::ObjectStore>> OpenStoreOfWorker(
    const store::StoreUrl& url, const store::S3Options& s3,
    struct ev_loop* loop, const char* setting) {
  Result<std::unique_ptr<store::ObjectStore>> opened =
      store::OpenInitializedStore(url, s3, loop);
  if (!opened.ok() && opened.status().IsTransient()) {
    opened = store::OpenStore(url, s3, loop);
  }
  if (!opened.ok()) return opened;
  return store::NewMarkerCheckedStore(std::move(*opened),
                                      store::FormatStoreUrl(url), setting);
}

int RunOnLoop(const WorkerProcessDeps& deps, int slot, struct ev_loop* loop) {
  std::string id = WorkerId(deps.options, slot);
  obs::SetLogWorker(id);
  WorkerProcessReporter reporter(deps.metrics, deps.status, slot,
                                 deps.registry);
  reporter.StateChanged(WorkerState::kConnecting, nullptr);
  Result<std::unique_ptr<store::ObjectStore>> opened =
      OpenStoreOfWorker(*deps.store_url, *deps.s3_options, loop, "AWC_CAS_URL");
  if (!opened.ok()) {
    obs::Error("worker", "cannot open the object store")
        .Str("error", opened.status().message())
        .Emit();
    return 1;
  }
  // The repair store, the same way; writes to it are refused.
  std::unique_ptr<store::ObjectStore> repair;
  if (deps.repair_url != nullptr) {
    Result<std::unique_ptr<store::ObjectStore>> r = OpenStoreOfWorker(
        *deps.repair_url, *deps.repair_s3_options, loop, "AWC_CAS_REPAIR_URL");
    if (!r.ok()) {
      obs::Error("worker", "cannot open the repair store")
          .Str("error", r.status().message())
          .Emit();
      return 1;
    }
    repair = store::NewReadOnlyStore(std::move(*r));
  }
  MeteredStore store(std::move(opened).value(), deps.store_url->scheme,
                     deps.metrics, Env::Default());
  PgJobSource source(loop, deps.database_url,
                     Identity(id, slot, *deps.registry),
                     deps.options.lease_secs, deps.options.pool_mode);
  Worker worker(WorkerDeps{.options = deps.options,
                           .source = &source,
                           .reporter = &reporter,
                           .registry = deps.registry,
                           .store = &store,
                           .loop = loop,
                           .handler_options = deps.handler_options,
                           .metrics = deps.metrics,
                           .env = Env::Default(),
                           .stop_requested = &process::StopRequested,
                           .orphans = deps.status,
                           .repair_store = repair.get(),
                           .read_budget = deps.read_budget,
                           .places = deps.status,
                           .slot = slot,
                           .background_kinds = handlers::BackgroundKinds()});
  worker.Run();
  return 0;
}

}  // namespace

int RunWorkerProcess(const WorkerProcessDeps& deps, int slot) {
  return process::RunChildProcess(
      [&](struct ev_loop* loop) { return RunOnLoop(deps, slot, loop); });
}

}  // namespace awc::worker
