// The metric families of /metrics: one row each in kMetricFamilies, which
// is what the master serves, in the order it serves them. The row is the
// one source of a family's name, type, help, label names and where its
// samples come from: rendering (metrics.cc, scrape.cc) iterates the table,
// the shared region (metrics_region.h) is laid out from it, and the
// documents that list the families are checked against it
// (metric_families_test.cc).
//
// Adding a family: its id in MetricId and its row at the same place in
// kMetricFamilies; a family of the shared region is then recorded with
// Metrics::Add/Set/Observe (or a named wrapper in metrics.h), one read when
// scraped gets a `scrape` function. Its name and labels are a contract with
// dashboards and alerts: README.md, docs/observability.md ("Metrics")
// and man/awc-worker.8 list every family.
#ifndef AWC_OBS_METRIC_FAMILIES_H_
#define AWC_OBS_METRIC_FAMILIES_H_

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "obs/prom_text.h"

namespace awc::obs {

inline constexpr int kMaxFamilyLabels = 3;

// The values of a family's labels, in the order of its label names.
using LabelValues = std::array<std::string_view, kMaxFamilyLabels>;

enum class MetricId {
  kBackgroundJobs,
  kJobLag,
  kApiErrors,
  kWorkerOtherDatabaseErrors,
  kJobDuration,
  kWorkerRestarts,
  kWorkersRunning,
  kLeaseReclaims,
  kCrashRequeues,
  kSilentWorkerReclaims,
  kSchedulerLeader,
  kScheduleRuns,
  kScheduleEnqueued,
  kQueueJobs,
  kQueueOldestPending,
  kQueuePriorityOldestReady,
  kDatabaseHorizonXids,
  kDatabaseHorizonHeld,
  kSnapshotVerdicts,
  kGcEpochs,
  kGcObjectsDeleted,
  kGcBytesDeleted,
  kReconcileOrphans,
  kReconcileOrphanBytes,
  kReconcileMissingObjects,
  kRepairs,
  kScrubOldestUnverified,
  kScrubVerifiedRatio,
  kScrubRequiredRate,
  kScrubBudgetRate,
  kStoreRequests,
  kStoreRequestDuration,
  kStoreBytesRead,
  kBuildInfo,
  kWorkers,
  kProcessCpuSeconds,
  kProcessResidentMemory,
  kProcessVirtualMemory,
  kProcessStartTime,
  kProcessOpenFds,
  kProcessMaxFds,
};

// Where a family's samples come from.
enum class MetricSource {
  // A family of label sets in the shared region (metric_cells.h): a series
  // per label set recorded or declared, none before that.
  kLabelSets,
  // One series in the shared region, shown from the start; its labels, if
  // it has any, take the values of MetricFamily::fixed.
  kCell,
  // Read in the master when scraped (scrape.h); a family with nothing to
  // show is left out, HELP and TYPE included.
  kScrape,
};

class WorkerStatusTable;
struct ProcReading;

// What the families read at scrape time read.
struct ScrapeInput {
  const WorkerStatusTable* status = nullptr;  // null: no awc_workers
  int workers_down = 0;  // worker slots of the configuration with no process
  const ProcReading* proc = nullptr;  // null: no process_*
};

// The samples of one family read when scraped: label values and value.
using ScrapeSamples = std::vector<std::pair<LabelValues, double>>;

struct MetricFamily;
using ScrapeFn = void (*)(const ScrapeInput& input, const MetricFamily& family,
                          ScrapeSamples* out);

struct MetricFamily {
  MetricId id;
  const char* name;
  MetricType type;
  const char* help;
  std::array<const char*, kMaxFamilyLabels> labels = {};  // nullptr-padded
  MetricSource source = MetricSource::kLabelSets;
  std::span<const double> bounds = {};  // a histogram's upper bounds
  LabelValues fixed = {};               // kCell: the values of `labels`
  ScrapeFn scrape = nullptr;            // kScrape: its samples
};

constexpr int NumLabels(const MetricFamily& f) {
  int n = 0;
  while (n < kMaxFamilyLabels && f.labels[n] != nullptr) ++n;
  return n;
}

// The families read when scraped (scrape.cc, process_metrics.cc).
void BuildInfoSamples(const ScrapeInput& in, const MetricFamily& f,
                      ScrapeSamples* out);
void WorkerPhaseSamples(const ScrapeInput& in, const MetricFamily& f,
                        ScrapeSamples* out);
// The value /proc gave for the family `f` (ProcReading), if any.
void ProcessSamples(const ScrapeInput& in, const MetricFamily& f,
                    ScrapeSamples* out);

// Upper bounds of the histograms, in seconds; +Inf is implicit.
inline constexpr double kJobDurationBounds[] = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    2.5,   5,    10,    30,   60,  120,  300, 600};
inline constexpr double kStoreRequestBounds[] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25,   0.5,   1,      2.5,   5,    10,    30,   60};

inline constexpr MetricFamily kMetricFamilies[] = {
    {.id = MetricId::kBackgroundJobs,
     .name = "awc_background_jobs_total",
     .type = MetricType::kCounter,
     .help = "Background jobs processed, by kind and outcome.",
     .labels = {"kind", "outcome"}},
    {.id = MetricId::kJobLag,
     .name = "awc_background_job_lag_seconds",
     .type = MetricType::kGauge,
     .help = "Seconds from ready to processed of the last job of each kind.",
     .labels = {"kind"}},
    {.id = MetricId::kApiErrors,
     .name = "awc_api_errors_total",
     .type = MetricType::kCounter,
     .help = "Transient database errors of the workers' claims and "
             "records.",
     .labels = {"component"},
     .source = MetricSource::kCell,
     .fixed = {"worker"}},
    {.id = MetricId::kWorkerOtherDatabaseErrors,
     .name = "awc_worker_other_database_errors_total",
     .type = MetricType::kCounter,
     .help = "Database errors of the workers not counted in "
             "awc_api_errors_total: reclaims, hand-backs, waits for work, "
             "lease renewals, job checks, heartbeats, and claims and records "
             "that failed for good.",
     .source = MetricSource::kCell},
    {.id = MetricId::kJobDuration,
     .name = "awc_background_job_duration_seconds",
     .type = MetricType::kHistogram,
     .help = "Handler run time of background jobs, by kind.",
     .labels = {"kind"},
     .bounds = kJobDurationBounds},
    {.id = MetricId::kWorkerRestarts,
     .name = "awc_worker_restarts_total",
     .type = MetricType::kCounter,
     .help = "Worker processes restarted by the supervisor.",
     .source = MetricSource::kCell},
    {.id = MetricId::kWorkersRunning,
     .name = "awc_workers_running",
     .type = MetricType::kGauge,
     .help = "Worker processes currently running.",
     .source = MetricSource::kCell},
    {.id = MetricId::kLeaseReclaims,
     .name = "awc_lease_reclaims_total",
     .type = MetricType::kCounter,
     .help = "Jobs whose lease expired, requeued or dead-lettered by the "
             "reclaim.",
     .source = MetricSource::kCell},
    {.id = MetricId::kCrashRequeues,
     .name = "awc_crash_requeues_total",
     .type = MetricType::kCounter,
     .help = "Jobs whose worker died running them, handed back at once "
             "(requeued or dead-lettered as worker_crashed).",
     .source = MetricSource::kCell},
    {.id = MetricId::kSilentWorkerReclaims,
     .name = "awc_silent_worker_reclaims_total",
     .type = MetricType::kCounter,
     .help = "Jobs taken back before their lease ended because their "
             "worker wrote no heartbeat for "
             "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS.",
     .source = MetricSource::kCell},
    {.id = MetricId::kSchedulerLeader,
     .name = "awc_scheduler_leader",
     .type = MetricType::kGauge,
     .help = "1 while this host's scheduler holds the leader lease, else 0.",
     .source = MetricSource::kCell},
    {.id = MetricId::kScheduleRuns,
     .name = "awc_schedule_runs_total",
     .type = MetricType::kCounter,
     .help = "Schedule firings by the leading scheduler, by schedule and "
             "result.",
     .labels = {"schedule", "result"}},
    {.id = MetricId::kScheduleEnqueued,
     .name = "awc_scheduler_jobs_enqueued_total",
     .type = MetricType::kCounter,
     .help = "Jobs enqueued by schedule firings, by schedule.",
     .labels = {"schedule"}},
    {.id = MetricId::kQueueJobs,
     .name = "awc_queue_jobs",
     .type = MetricType::kGauge,
     .help = "Jobs in the queue by kind and state (failed: dead letters), as "
             "last sampled.",
     .labels = {"kind", "state"}},
    {.id = MetricId::kQueueOldestPending,
     .name = "awc_queue_oldest_pending_seconds",
     .type = MetricType::kGauge,
     .help = "Seconds the oldest ready PENDING job of each kind has waited, "
             "as last sampled; 0 when none is ready.",
     .labels = {"kind"}},
    {.id = MetricId::kQueuePriorityOldestReady,
     .name = "awc_queue_priority_oldest_ready_seconds",
     .type = MetricType::kGauge,
     .help = "Seconds the oldest ready PENDING job of each priority (0, the "
             "most urgent, to 9) has waited, as last sampled; 0 when none "
             "is ready.",
     .labels = {"priority"}},
    {.id = MetricId::kDatabaseHorizonXids,
     .name = "awc_database_horizon_xids",
     .type = MetricType::kGauge,
     .help = "Transactions the database's MVCC horizon lags behind, held "
             "by the session, prepared transaction, slot or standby with the "
             "oldest xmin (what vacuum may not reclaim in awc.jobs grows with "
             "it). Sampled with the queue's depth; 0 when nothing holds it.",
     .source = MetricSource::kCell},
    {.id = MetricId::kDatabaseHorizonHeld,
     .name = "awc_database_horizon_held_seconds",
     .type = MetricType::kGauge,
     .help = "Seconds the transaction holding the horizon back has been "
             "open (a session or a prepared transaction of this database; 0 "
             "for a replication slot or standby, or when none).",
     .source = MetricSource::kCell},
    {.id = MetricId::kSnapshotVerdicts,
     .name = "awc_snapshot_verdicts_total",
     .type = MetricType::kCounter,
     .help = "Snapshot verdicts committed: validate (ready, failed) and "
             "scrub (clean, degraded).",
     .labels = {"kind", "verdict"}},
    {.id = MetricId::kGcEpochs,
     .name = "awc_gc_epochs_total",
     .type = MetricType::kCounter,
     .help = "GC sweeps by result: an epoch completed, dry run, aborted or "
             "refused, or the sweep deferred (tenant locked).",
     .labels = {"result"}},
    {.id = MetricId::kGcObjectsDeleted,
     .name = "awc_gc_objects_deleted_total",
     .type = MetricType::kCounter,
     .help = "Objects deleted from the store by GC.",
     .source = MetricSource::kCell},
    {.id = MetricId::kGcBytesDeleted,
     .name = "awc_gc_bytes_deleted_total",
     .type = MetricType::kCounter,
     .help = "Bytes of the objects deleted from the store by GC.",
     .source = MetricSource::kCell},
    {.id = MetricId::kReconcileOrphans,
     .name = "awc_reconcile_orphans_total",
     .type = MetricType::kCounter,
     .help = "Objects found in the store with no inventory row by "
             "store_reconcile, older than the GC grace, registered for GC.",
     .source = MetricSource::kCell},
    {.id = MetricId::kReconcileOrphanBytes,
     .name = "awc_reconcile_orphan_bytes_total",
     .type = MetricType::kCounter,
     .help = "Bytes of the orphans registered for GC by store_reconcile.",
     .source = MetricSource::kCell},
    {.id = MetricId::kReconcileMissingObjects,
     .name = "awc_reconcile_missing_objects_total",
     .type = MetricType::kCounter,
     .help = "LIVE inventory objects that store_reconcile found absent from "
             "the store, or stored with another size.",
     .source = MetricSource::kCell},
    {.id = MetricId::kRepairs,
     .name = "awc_repairs_total",
     .type = MetricType::kCounter,
     .help = "Lost or damaged objects a handler tried to restore from the "
             "repair store, by result: repaired, absent (not in the repair "
             "store), corrupt (the repair store's bytes are not the object), "
             "refused (GC is deleting it).",
     .labels = {"result"}},
    {.id = MetricId::kScrubOldestUnverified,
     .name = "awc_scrub_oldest_unverified_seconds",
     .type = MetricType::kGauge,
     .help = "Seconds since the referenced object verified longest ago (or "
             "never, since its upload) was verified; above "
             "AWC_SCRUB_INTERVAL_SECS the coverage promise is broken. "
             "Sampled hourly by the scrub planner.",
     .source = MetricSource::kCell},
    {.id = MetricId::kScrubVerifiedRatio,
     .name = "awc_scrub_verified_ratio",
     .type = MetricType::kGauge,
     .help = "Share of the referenced objects verified within "
             "AWC_SCRUB_INTERVAL_SECS, sampled hourly.",
     .source = MetricSource::kCell},
    {.id = MetricId::kScrubRequiredRate,
     .name = "awc_scrub_required_bytes_per_second",
     .type = MetricType::kGauge,
     .help = "Bytes a second the fleet must verify to keep the coverage "
             "promise: the referenced objects' bytes over "
             "AWC_SCRUB_INTERVAL_SECS.",
     .source = MetricSource::kCell},
    {.id = MetricId::kScrubBudgetRate,
     .name = "awc_scrub_budget_bytes_per_second",
     .type = MetricType::kGauge,
     .help = "The fleet's read budget for maintenance, bytes a second "
             "(AWC_SCRUB_BUDGET_MB_PER_SEC times the hosts running "
             "workers); 0: no budget.",
     .source = MetricSource::kCell},
    {.id = MetricId::kStoreRequests,
     .name = "awc_store_requests_total",
     .type = MetricType::kCounter,
     .help = "Object store requests, by store, op and result.",
     .labels = {"store", "op", "result"}},
    {.id = MetricId::kStoreRequestDuration,
     .name = "awc_store_request_duration_seconds",
     .type = MetricType::kHistogram,
     .help = "Object store request time, by store and op.",
     .labels = {"store", "op"},
     .bounds = kStoreRequestBounds},
    {.id = MetricId::kStoreBytesRead,
     .name = "awc_store_bytes_read_total",
     .type = MetricType::kCounter,
     .help = "Bytes read from the object store, by store.",
     .labels = {"store"}},
    {.id = MetricId::kBuildInfo,
     .name = "awc_build_info",
     .type = MetricType::kGauge,
     .help = "Always 1; the labels say which build of awc-worker runs.",
     .labels = {"version", "s3"},
     .source = MetricSource::kScrape,
     .scrape = BuildInfoSamples},
    {.id = MetricId::kWorkers,
     .name = "awc_workers",
     .type = MetricType::kGauge,
     .help = "Workers by phase; down: worker slots whose process is gone "
             "(waiting for its restart).",
     .labels = {"phase"},
     .source = MetricSource::kScrape,
     .scrape = WorkerPhaseSamples},
    {.id = MetricId::kProcessCpuSeconds,
     .name = "process_cpu_seconds_total",
     .type = MetricType::kCounter,
     .help = "Total user and system CPU time spent in seconds.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
    {.id = MetricId::kProcessResidentMemory,
     .name = "process_resident_memory_bytes",
     .type = MetricType::kGauge,
     .help = "Resident memory size in bytes.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
    {.id = MetricId::kProcessVirtualMemory,
     .name = "process_virtual_memory_bytes",
     .type = MetricType::kGauge,
     .help = "Virtual memory size in bytes.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
    {.id = MetricId::kProcessStartTime,
     .name = "process_start_time_seconds",
     .type = MetricType::kGauge,
     .help = "Start time of the process since unix epoch in seconds.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
    {.id = MetricId::kProcessOpenFds,
     .name = "process_open_fds",
     .type = MetricType::kGauge,
     .help = "Number of open file descriptors.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
    {.id = MetricId::kProcessMaxFds,
     .name = "process_max_fds",
     .type = MetricType::kGauge,
     .help = "Maximum number of open file descriptors.",
     .source = MetricSource::kScrape,
     .scrape = ProcessSamples},
};

inline constexpr int kNumMetricFamilies = std::size(kMetricFamilies);

constexpr const MetricFamily& FamilyOf(MetricId id) {
  return kMetricFamilies[static_cast<int>(id)];
}

// The table's invariants: a row per id, in id order; the families of the
// shared region before those read when scraped (so the region's text comes
// first, as Metrics::RenderPrometheus() renders it alone); one-series
// families are counters or gauges; histograms have bounds. (That each
// scraped family has a `scrape` function is checked by
// metric_families_test.cc: a function's address is no constant here.)
constexpr bool WellFormed() {
  bool scraped = false;
  for (int i = 0; i < kNumMetricFamilies; ++i) {
    const MetricFamily& f = kMetricFamilies[i];
    if (static_cast<int>(f.id) != i) return false;
    if (f.source == MetricSource::kScrape) {
      scraped = true;
    } else if (scraped) {
      return false;
    }
    if (f.source == MetricSource::kCell && f.type == MetricType::kHistogram) {
      return false;
    }
    if ((f.type == MetricType::kHistogram) == f.bounds.empty()) return false;
  }
  return true;
}
static_assert(WellFormed(), "kMetricFamilies: see WellFormed()");

}  // namespace awc::obs

#endif  // AWC_OBS_METRIC_FAMILIES_H_
