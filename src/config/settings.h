// Settings: the effective configuration of awc-worker and awcctl.
//
// Values come from three layers, later winning: built-in defaults, the INI
// file named by -c or AWC_CONFIG, the environment. Every setting has an
// environment name (awc-worker(8)) and an INI section/key
// (awc-worker.conf(5)); the table in setting_spec.cc is the only list of
// them. Settings stay in config/, awcctl and the daemon: modules get option
// structs built from them (options/module_options.h).
#ifndef AWC_CONFIG_SETTINGS_H_
#define AWC_CONFIG_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "db/pg.h"
#include "obs/log.h"

namespace awc::config {

// The most worker processes one tree runs (AWC_WORKER_CONCURRENCY).
inline constexpr int64_t kMaxWorkerConcurrency = 1024;

// AWC_WORKER_ID's default on a host named `host`: "awc-worker." and the
// host's short name (up to its first '.'), each byte of it outside
// [A-Za-z0-9_-] as '-' and at most kDefaultIdHostBytes of it, so that the
// id keeps the syntax and the 48 bytes of AWC_WORKER_ID; "unknown" for an
// empty name (docs/configuration.md, "A default per host").
std::string DefaultWorkerId(std::string_view host);
inline constexpr size_t kDefaultIdHostBytes = 37;

struct Settings {
  std::string database_url;      // required by the daemon; secret: its password
  std::string migrate = "auto";  // "auto": apply at start; "check": never DDL
  // AWC_DATABASE_POOL_MODE: "session" (direct, or a session pooler) or
  // "transaction" (behind a transaction pooler; db/pg.h).
  std::string database_pool_mode = "session";
  bool production = false;  // awcctl asks before changing anything
  std::string cas_url;      // required by the daemon
  // AWC_CAS_REPAIR_URL: a store objects are restored from, read-only;
  // empty = none (docs/store.md, "Repair").
  std::string cas_repair_url;
  // AWC_WORKER_ID. Unset, Config fills in DefaultWorkerId(HostName()):
  // empty only in Settings no Config loaded.
  std::string worker_id;
  int64_t worker_concurrency = 4;
  // AWC_WORKER_BACKGROUND_CONCURRENCY: how many workers of the host may
  // run a background kind (scrub, reconciliation, GC) at once; 0: one
  // fewer than worker_concurrency, at least 1 (BackgroundPlaces).
  int64_t worker_background_concurrency = 0;
  int64_t worker_lease_secs = 300;
  int64_t worker_poll_interval_ms = 1000;
  int64_t worker_give_up_secs = 300;
  int64_t worker_heartbeat_secs = 10;
  int64_t worker_heartbeat_timeout_secs = 30;
  int64_t retention_grace_secs = 86400;
  int64_t gc_grace_secs = 86400;
  int64_t gc_batch_size = 1000;
  int64_t gc_canary_size = 10;
  bool gc_dry_run = false;
  std::string metrics_listen;  // "host:port"; empty = no listener
  obs::LogLevel log_level = obs::LogLevel::kInfo;
  std::string s3_endpoint;  // empty = https://s3.<region>.amazonaws.com
  std::string s3_region = "us-east-1";
  std::string s3_access_key_id;
  std::string s3_secret_access_key;  // secret
  bool s3_force_path_style = false;
  // The repair store's, when it is s3:// and differs; empty = the above.
  std::string s3_repair_endpoint;
  std::string s3_repair_region;
  std::string s3_repair_access_key_id;
  std::string s3_repair_secret_access_key;  // secret
  int64_t s3_max_concurrency = 16;
  int64_t s3_timeout_ms = 30000;
  int64_t manifest_max_bytes = 16 * 1024 * 1024;
  int64_t closure_max_depth = 64;
  int64_t closure_max_objects = 10'000'000;
  // The scheduler (docs/scheduler.md, "Scheduler").
  bool scheduler = true;  // AWC_SCHEDULER: on, off
  int64_t scheduler_lease_secs = 30;
  int64_t scrub_interval_secs = 30 * 86400;
  int64_t scrub_max_per_run = 100;
  // The host's budget of maintenance reads, shared by its workers; 0: none.
  int64_t scrub_budget_mb_per_sec = 0;
  int64_t scrub_budget_objects_per_sec = 0;
  int64_t job_retention_secs = 7 * 86400;
  int64_t dead_letter_retention_secs = 30 * 86400;
  int64_t audit_retention_secs = 365 * 86400;  // 0 keeps them

  std::string config_file;  // the INI file that was read, or ""

  db::PoolMode DatabasePoolMode() const {
    return database_pool_mode == "transaction" ? db::PoolMode::kTransaction
                                               : db::PoolMode::kSession;
  }

  // The S3 endpoint after applying the region default.
  std::string EffectiveS3Endpoint() const {
    return s3_endpoint.empty() ? "https://s3." + s3_region + ".amazonaws.com"
                               : s3_endpoint;
  }
};

}  // namespace awc::config

#endif  // AWC_CONFIG_SETTINGS_H_
