#include "options/module_options.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "common/host_name.h"
#include "common/numbers.h"
#include "fleet/fleet_sql.h"
#include "fleet/id_clash.h"
#include "fleet/workers.h"
#include "http/listen_address.h"
#include "migrate/migrate_sql.h"
#include "migrate/migrator.h"

namespace awc::options {

std::string NotificationsNote(const config::Settings& settings) {
  if (settings.DatabasePoolMode() == db::PoolMode::kSession) {
    return "notifications on: workers are woken by NOTIFY awc_jobs";
  }
  return "notifications off (AWC_DATABASE_POOL_MODE=transaction): workers "
         "find new jobs by polling every " +
         std::to_string(settings.worker_poll_interval_ms) +
         " ms (AWC_WORKER_POLL_INTERVAL_MS)";
}

Result<store::StoreUrl> StoreUrlFrom(const config::Settings& settings) {
  Result<store::StoreUrl> url = store::ParseStoreUrl(settings.cas_url);
  if (!url.ok()) return url.status().WithContext("AWC_CAS_URL");
  return url;
}

Result<std::optional<store::StoreUrl>> RepairStoreUrlFrom(
    const config::Settings& settings) {
  if (settings.cas_repair_url.empty()) {
    return std::optional<store::StoreUrl>();
  }
  Result<store::StoreUrl> url = store::ParseStoreUrl(settings.cas_repair_url);
  if (!url.ok()) return url.status().WithContext("AWC_CAS_REPAIR_URL");
  return std::optional<store::StoreUrl>(std::move(*url));
}

store::S3Options S3OptionsFrom(const config::Settings& settings) {
  store::S3Options o;
  o.endpoint = settings.EffectiveS3Endpoint();
  o.region = settings.s3_region;
  o.access_key_id = settings.s3_access_key_id;
  o.secret_access_key = settings.s3_secret_access_key;
  o.force_path_style = settings.s3_force_path_style;
  o.max_concurrency = static_cast<int>(settings.s3_max_concurrency);
  o.timeout_ms = static_cast<long>(settings.s3_timeout_ms);
  return o;
}

store::S3Options RepairS3OptionsFrom(const config::Settings& settings) {
  store::S3Options o = S3OptionsFrom(settings);
  if (!settings.s3_repair_region.empty()) {
    o.region = settings.s3_repair_region;
    if (settings.s3_endpoint.empty()) {
      o.endpoint = "https://s3." + o.region + ".amazonaws.com";
    }
  }
  if (!settings.s3_repair_endpoint.empty()) {
    o.endpoint = settings.s3_repair_endpoint;
  }
  if (!settings.s3_repair_access_key_id.empty()) {
    o.access_key_id = settings.s3_repair_access_key_id;
    o.secret_access_key = settings.s3_repair_secret_access_key;
  }
  return o;
}

cas::ClosureLimits ClosureLimitsFrom(const config::Settings& settings) {
  cas::ClosureLimits limits;
  limits.manifest_max_bytes =
      static_cast<uint64_t>(settings.manifest_max_bytes);
  limits.max_depth = static_cast<int>(settings.closure_max_depth);
  limits.max_objects = static_cast<uint64_t>(settings.closure_max_objects);
  return limits;
}

gc::SweepOptions SweepOptionsFrom(const config::Settings& settings) {
  gc::SweepOptions o;
  o.grace_secs = settings.gc_grace_secs;
  o.batch_size = settings.gc_batch_size;
  o.canary_size = settings.gc_canary_size;
  o.dry_run = settings.gc_dry_run;
  o.lock_ttl_secs = static_cast<double>(settings.worker_lease_secs);
  return o;
}

handlers::HandlerOptions HandlerOptionsFrom(const config::Settings& settings) {
  handlers::HandlerOptions o;
  o.closure = ClosureLimitsFrom(settings);
  o.sweep = SweepOptionsFrom(settings);
  o.retention_grace_secs = settings.retention_grace_secs;
  o.read_budget.bytes_per_sec =
      static_cast<double>(settings.scrub_budget_mb_per_sec) * 1e6;
  o.read_budget.objects_per_sec =
      static_cast<double>(settings.scrub_budget_objects_per_sec);
  return o;
}

worker::WorkerOptions WorkerOptionsFrom(const config::Settings& settings) {
  worker::WorkerOptions o;
  o.id_base = settings.worker_id;
  o.lease_secs = settings.worker_lease_secs;
  o.poll_interval_ms = settings.worker_poll_interval_ms;
  o.beat_keepalive_secs = static_cast<double>(settings.worker_heartbeat_secs);
  o.beat_min_secs = std::min(o.beat_min_secs, o.beat_keepalive_secs);
  o.heartbeat_timeout_secs = settings.worker_heartbeat_timeout_secs;
  o.pool_mode = settings.DatabasePoolMode();
  return o;
}

scheduler::SchedulerOptions SchedulerOptionsFrom(
    const config::Settings& settings) {
  scheduler::SchedulerOptions o;
  o.id_base = settings.worker_id;
  o.lease_secs = settings.scheduler_lease_secs;
  o.pool_mode = settings.DatabasePoolMode();
  o.retention_grace_secs = settings.retention_grace_secs;
  o.scrub_interval_secs = settings.scrub_interval_secs;
  o.scrub_max_per_run = settings.scrub_max_per_run;
  o.scrub_budget_bytes_per_sec =
      static_cast<double>(settings.scrub_budget_mb_per_sec) * 1e6;
  o.job_retention_secs = settings.job_retention_secs;
  o.dead_letter_retention_secs = settings.dead_letter_retention_secs;
  o.audit_retention_secs = settings.audit_retention_secs;
  return o;
}

migrate::MigrateOptions MigrateOptionsFor(bool allow_incompatible,
                                          migrate::WaitFn while_waiting) {
  migrate::MigrateOptions o;
  o.while_waiting = std::move(while_waiting);
  o.allow_incompatible = allow_incompatible;
  o.live_workers =
      [](db::PgConn& conn) -> Result<std::vector<migrate::LiveWorker>> {
    AWC_ASSIGN_OR_RETURN(std::vector<fleet::WorkerRow> rows,
                         fleet::LiveWorkers(conn));
    std::vector<migrate::LiveWorker> live;
    for (const fleet::WorkerRow& w : rows) {
      live.push_back({w.host, w.worker_id, w.build,
                      w.schema_version > 0 ? std::optional(w.schema_version)
                                           : std::nullopt});
    }
    return live;
  };
  return o;
}

int BackgroundPlaces(const config::Settings& settings) {
  int64_t workers = settings.worker_concurrency;
  int64_t places = settings.worker_background_concurrency;
  if (places == 0) places = workers - 1;
  return static_cast<int>(std::clamp<int64_t>(places, 1, workers));
}

Result<supervisor::Supervisor::Options> SupervisorOptionsFrom(
    const config::Settings& settings) {
  supervisor::Supervisor::Options o;
  o.slots = static_cast<int>(settings.worker_concurrency);
  o.drain_allowance = static_cast<double>(settings.worker_lease_secs);
  o.give_up_after = static_cast<double>(settings.worker_give_up_secs);
  if (!settings.metrics_listen.empty()) {
    Result<http::ListenAddress> addr =
        http::ParseListenAddress(settings.metrics_listen);
    if (!addr.ok()) return addr.status().WithContext("AWC_METRICS_LISTEN");
    o.metrics_listen = *addr;
  }
  o.probe.conninfo = settings.database_url;
  o.probe.application_name = settings.worker_id + "-master";
  // The schema's version, then the worker ids in use on more than one
  // host (an older schema may lack awc.workers: that answer may fail).
  o.probe.statements = {
      {migrate::sql::kSchemaVersion, {}},
      {fleet::sql::kIdClashes, {SecondsText(fleet::kFreshSecs)}, true}};
  auto clashes = std::make_shared<fleet::IdClashWatch>(HostName());
  o.probe.judge = [clashes](const std::vector<db::Probe::Answer>& answers) {
    db::Probe::Verdict v;
    const db::Probe::Answer& version = answers.at(0);
    v.problem = migrate::SchemaVersionProblem(
        version.rows.empty() || version.rows[0].empty() ? ""
                                                        : version.rows[0][0]);
    std::vector<std::pair<std::string, std::string>> rows;
    for (const std::vector<std::string>& r : answers.at(1).rows) {
      if (r.size() == 2) rows.emplace_back(r[0], r[1]);
    }
    if (!answers.at(1).failed) {
      v.warnings = clashes->Update(fleet::GroupIdClashes(rows));
    }
    return v;
  };
  if (settings.DatabasePoolMode() == db::PoolMode::kTransaction) {
    o.readiness_note = NotificationsNote(settings) + "\n";
  }
  return o;
}

}  // namespace awc::options
