// Module options: the one place where the configuration becomes the option
// structs of the modules (docs/configuration.md, "Configuration").
//
// Settings flow one way: config/ loads and checks them; the daemon and
// awcctl convert them here; the modules (store/, cas/, gc/, handlers/,
// supervisor/, scheduler/) see only their own options and never include
// config/.
//
// Contract: the functions take Settings that Config::Load() accepted. The
// conversions that parse text (the store URL, the listen address) use the
// parsers the settings table checks with, so for such Settings they cannot
// fail; they still return a Result naming the setting rather than assume.
#ifndef AWC_OPTIONS_MODULE_OPTIONS_H_
#define AWC_OPTIONS_MODULE_OPTIONS_H_

#include <optional>

#include "cas/closure.h"
#include "common/status.h"
#include "config/settings.h"
#include "gc/sweep.h"
#include "handlers/handler_options.h"
#include "migrate/migrator.h"
#include "scheduler/scheduler_options.h"
#include "store/s3_options.h"
#include "store/store_url.h"
#include "supervisor/supervisor.h"
#include "worker/worker_deps.h"

namespace awc::options {

// How the workers learn of new jobs under AWC_DATABASE_POOL_MODE: woken by
// NOTIFY, or (transaction) polling every AWC_WORKER_POLL_INTERVAL_MS; one
// line for /readyz and `awcctl health`.
std::string NotificationsNote(const config::Settings& settings);

// AWC_CAS_URL.
Result<store::StoreUrl> StoreUrlFrom(const config::Settings& settings);

// AWC_S3_*: the effective endpoint (the region's AWS endpoint when unset),
// region, key pair, addressing, concurrency, stall timeout.
store::S3Options S3OptionsFrom(const config::Settings& settings);

// AWC_CAS_REPAIR_URL: nullopt when there is no repair store.
Result<std::optional<store::StoreUrl>> RepairStoreUrlFrom(
    const config::Settings& settings);
// The repair store's S3 settings: the AWC_S3_REPAIR_* that are set, the
// main store's for the rest.
store::S3Options RepairS3OptionsFrom(const config::Settings& settings);

// AWC_MANIFEST_MAX_BYTES, AWC_CLOSURE_MAX_DEPTH, AWC_CLOSURE_MAX_OBJECTS.
cas::ClosureLimits ClosureLimitsFrom(const config::Settings& settings);

// AWC_GC_GRACE_SECS, AWC_GC_BATCH_SIZE, AWC_GC_CANARY_SIZE, AWC_GC_DRY_RUN;
// the GC lock lives as long as a job lease (AWC_WORKER_LEASE_SECS). The
// holder and job id are per job: left empty.
gc::SweepOptions SweepOptionsFrom(const config::Settings& settings);

// What the built-in handlers use: the closure limits, the sweep options and
// AWC_RETENTION_GRACE_SECS.
handlers::HandlerOptions HandlerOptionsFrom(const config::Settings& settings);

// AWC_WORKER_ID, AWC_WORKER_LEASE_SECS, AWC_WORKER_POLL_INTERVAL_MS,
// AWC_DATABASE_POOL_MODE.
worker::WorkerOptions WorkerOptionsFrom(const config::Settings& settings);

// AWC_WORKER_ID, AWC_DATABASE_POOL_MODE, AWC_SCHEDULER_LEASE_SECS,
// AWC_RETENTION_GRACE_SECS (the
// expire planner decides as the handler does), AWC_SCRUB_INTERVAL_SECS,
// AWC_SCRUB_MAX_PER_RUN, AWC_JOB_RETENTION_SECS,
// AWC_DEAD_LETTER_RETENTION_SECS, AWC_AUDIT_RETENTION_SECS. (AWC_SCHEDULER
// decides whether the daemon runs a scheduler at all.)
scheduler::SchedulerOptions SchedulerOptionsFrom(
    const config::Settings& settings);

// How the daemon's startup and `awcctl migrate` migrate: the gate on
// migrations that live workers' builds cannot run on reads the workers'
// heartbeats (fleet/workers.h); `allow_incompatible` lifts it. Takes no
// setting.
migrate::MigrateOptions MigrateOptionsFor(bool allow_incompatible,
                                          migrate::WaitFn while_waiting = {});

// AWC_WORKER_CONCURRENCY slots, the parsed AWC_METRICS_LISTEN, a
// graceful stop's allowance of one AWC_WORKER_LEASE_SECS, and behind a
// transaction pooler /readyz's NotificationsNote.
// How many of the host's workers may run a background kind at once
// (AWC_WORKER_BACKGROUND_CONCURRENCY; 0: one fewer than the workers, at
// least 1).
int BackgroundPlaces(const config::Settings& settings);

Result<supervisor::Supervisor::Options> SupervisorOptionsFrom(
    const config::Settings& settings);

}  // namespace awc::options

#endif  // AWC_OPTIONS_MODULE_OPTIONS_H_
