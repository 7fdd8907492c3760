#include "options/module_options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "common/host_name.h"
#include "common/redact.h"
#include "config/config.h"

namespace awc::options {
namespace {

// Settings as the daemon gets them: loaded (and checked) from an
// environment.
config::Settings Load(const std::map<std::string, std::string>& env) {
  Result<config::Config> cfg =
      config::Config::Load("", [&env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      });
  EXPECT_TRUE(cfg.ok()) << cfg.status().ToString();
  return cfg.ok() ? cfg->settings() : config::Settings{};
}

TEST(ModuleOptionsTest, S3OptionsCarryEverySetting) {
  config::Settings s = Load({{"AWC_S3_ENDPOINT", "http://127.0.0.1:9000/s3"},
                             {"AWC_S3_REGION", "eu-west-3"},
                             {"AWC_S3_ACCESS_KEY_ID", "AKIDEXAMPLE"},
                             {"AWC_S3_SECRET_ACCESS_KEY", "wJalrXUtnFEMI"},
                             {"AWC_S3_FORCE_PATH_STYLE", "true"},
                             {"AWC_S3_MAX_CONCURRENCY", "7"},
                             {"AWC_S3_TIMEOUT_MS", "1500"}});
  store::S3Options o = S3OptionsFrom(s);
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:9000/s3");
  EXPECT_EQ(o.region, "eu-west-3");
  EXPECT_EQ(o.access_key_id, "AKIDEXAMPLE");
  EXPECT_EQ(o.secret_access_key, "wJalrXUtnFEMI");
  EXPECT_TRUE(o.force_path_style);
  EXPECT_EQ(o.max_concurrency, 7);
  EXPECT_EQ(o.timeout_ms, 1500);
  ClearSecrets();  // Load() registered the secret key
}

TEST(ModuleOptionsTest, UnsetEndpointIsTheRegionsAwsEndpoint) {
  store::S3Options o = S3OptionsFrom(Load({{"AWC_S3_REGION", "ap-south-1"}}));
  EXPECT_EQ(o.endpoint, "https://s3.ap-south-1.amazonaws.com");
  EXPECT_TRUE(store::s3::ParseEndpoint(o.endpoint).ok());
  EXPECT_EQ(S3OptionsFrom(Load({})).endpoint,
            "https://s3.us-east-1.amazonaws.com");
}

TEST(ModuleOptionsTest, HandlerOptionsCarryLimitsSweepAndRetention) {
  config::Settings s = Load({{"AWC_MANIFEST_MAX_BYTES", "4096"},
                             {"AWC_CLOSURE_MAX_DEPTH", "9"},
                             {"AWC_CLOSURE_MAX_OBJECTS", "12345"},
                             {"AWC_GC_GRACE_SECS", "600"},
                             {"AWC_GC_BATCH_SIZE", "50"},
                             {"AWC_GC_CANARY_SIZE", "5"},
                             {"AWC_GC_DRY_RUN", "1"},
                             {"AWC_WORKER_LEASE_SECS", "120"},
                             {"AWC_RETENTION_GRACE_SECS", "7200"}});
  handlers::HandlerOptions o = HandlerOptionsFrom(s);
  EXPECT_EQ(o.closure.manifest_max_bytes, 4096u);
  EXPECT_EQ(o.closure.max_depth, 9);
  EXPECT_EQ(o.closure.max_objects, 12345u);
  EXPECT_EQ(o.sweep.grace_secs, 600);
  EXPECT_EQ(o.sweep.batch_size, 50);
  EXPECT_EQ(o.sweep.canary_size, 5);
  EXPECT_TRUE(o.sweep.dry_run);
  EXPECT_EQ(o.sweep.lock_ttl_secs, 120.0);  // the GC lock lives for a lease
  EXPECT_EQ(o.sweep.holder, "");            // per job, set by the handler
  EXPECT_EQ(o.sweep.job_id, 0);
  EXPECT_EQ(o.retention_grace_secs, 7200);
}

TEST(ModuleOptionsTest, DefaultsMatchTheModulesOwnDefaults) {
  // A module's own defaults and the settings' defaults are one set of
  // numbers: options built from an empty configuration equal them.
  handlers::HandlerOptions from_settings = HandlerOptionsFrom(Load({}));
  handlers::HandlerOptions plain;
  EXPECT_EQ(from_settings.closure.manifest_max_bytes,
            plain.closure.manifest_max_bytes);
  EXPECT_EQ(from_settings.closure.max_depth, plain.closure.max_depth);
  EXPECT_EQ(from_settings.closure.max_objects, plain.closure.max_objects);
  EXPECT_EQ(from_settings.sweep.grace_secs, plain.sweep.grace_secs);
  EXPECT_EQ(from_settings.sweep.batch_size, plain.sweep.batch_size);
  EXPECT_EQ(from_settings.sweep.canary_size, plain.sweep.canary_size);
  EXPECT_EQ(from_settings.sweep.lock_ttl_secs, plain.sweep.lock_ttl_secs);
  EXPECT_EQ(from_settings.retention_grace_secs, plain.retention_grace_secs);
  store::S3Options s3 = S3OptionsFrom(Load({}));
  store::S3Options s3_plain;
  EXPECT_EQ(s3.region, s3_plain.region);
  EXPECT_EQ(s3.max_concurrency, s3_plain.max_concurrency);
  EXPECT_EQ(s3.timeout_ms, s3_plain.timeout_ms);
  worker::WorkerOptions w = WorkerOptionsFrom(Load({}));
  worker::WorkerOptions w_plain;
  // But the id, whose default is the host's (config/settings.h).
  EXPECT_EQ(w.id_base, config::DefaultWorkerId(HostName()));
  EXPECT_EQ(w.lease_secs, w_plain.lease_secs);
  EXPECT_EQ(w.poll_interval_ms, w_plain.poll_interval_ms);
  EXPECT_EQ(w.beat_keepalive_secs, w_plain.beat_keepalive_secs);
  EXPECT_EQ(w.beat_min_secs, w_plain.beat_min_secs);
  EXPECT_EQ(w.heartbeat_timeout_secs, w_plain.heartbeat_timeout_secs);
}

// Background places: one fewer than the workers by default, at least one,
// at most every worker.
TEST(ModuleOptionsTest, BackgroundPlacesLeaveAWorkerForTheRest) {
  config::Settings s;
  for (auto [workers, set, places] :
       {std::tuple{4, 0, 3}, std::tuple{2, 0, 1}, std::tuple{1, 0, 1},
        std::tuple{8, 2, 2}, std::tuple{4, 9, 4}, std::tuple{4, 4, 4}}) {
    s.worker_concurrency = workers;
    s.worker_background_concurrency = set;
    EXPECT_EQ(BackgroundPlaces(s), places) << workers << " " << set;
  }
}

TEST(ModuleOptionsTest, WorkerGetsItsIdLeaseAndPollInterval) {
  worker::WorkerOptions o =
      WorkerOptionsFrom(Load({{"AWC_WORKER_ID", "host-a"},
                              {"AWC_WORKER_LEASE_SECS", "90"},
                              {"AWC_WORKER_POLL_INTERVAL_MS", "250"}}));
  EXPECT_EQ(o.id_base, "host-a");
  EXPECT_EQ(o.lease_secs, 90);
  EXPECT_EQ(o.poll_interval_ms, 250);
  EXPECT_EQ(worker::WorkerId(o, 1), "host-a-2");
}

TEST(ModuleOptionsTest, WorkerGetsItsHeartbeatPaceAndTimeout) {
  worker::WorkerOptions o =
      WorkerOptionsFrom(Load({{"AWC_WORKER_HEARTBEAT_SECS", "1"},
                              {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "3"}}));
  EXPECT_EQ(o.beat_keepalive_secs, 1);
  EXPECT_EQ(o.beat_min_secs, 1) << "a change never waits longer than no change";
  EXPECT_EQ(o.heartbeat_timeout_secs, 3);
}

TEST(ModuleOptionsTest, SchedulerGetsItsLeaseAndThePlannersSettings) {
  scheduler::SchedulerOptions o =
      SchedulerOptionsFrom(Load({{"AWC_WORKER_ID", "host-a"},
                                 {"AWC_SCHEDULER_LEASE_SECS", "12"},
                                 {"AWC_RETENTION_GRACE_SECS", "600"},
                                 {"AWC_SCRUB_INTERVAL_SECS", "3600"},
                                 {"AWC_SCRUB_MAX_PER_RUN", "5"},
                                 {"AWC_JOB_RETENTION_SECS", "100"},
                                 {"AWC_DEAD_LETTER_RETENTION_SECS", "200"},
                                 {"AWC_AUDIT_RETENTION_SECS", "0"}}));
  EXPECT_EQ(o.id_base, "host-a");
  EXPECT_EQ(o.lease_secs, 12);
  EXPECT_EQ(o.retention_grace_secs, 600);
  EXPECT_EQ(o.scrub_interval_secs, 3600);
  EXPECT_EQ(o.scrub_max_per_run, 5);
  EXPECT_EQ(o.job_retention_secs, 100);
  EXPECT_EQ(o.dead_letter_retention_secs, 200);
  EXPECT_EQ(o.audit_retention_secs, 0);
  // The module's own defaults are the settings' defaults.
  scheduler::SchedulerOptions from_settings = SchedulerOptionsFrom(Load({}));
  scheduler::SchedulerOptions plain;
  EXPECT_EQ(from_settings.id_base, config::DefaultWorkerId(HostName()));
  EXPECT_EQ(from_settings.lease_secs, plain.lease_secs);
  EXPECT_EQ(from_settings.retention_grace_secs, plain.retention_grace_secs);
  EXPECT_EQ(from_settings.scrub_interval_secs, plain.scrub_interval_secs);
  EXPECT_EQ(from_settings.scrub_max_per_run, plain.scrub_max_per_run);
  EXPECT_EQ(from_settings.job_retention_secs, plain.job_retention_secs);
  EXPECT_EQ(from_settings.dead_letter_retention_secs,
            plain.dead_letter_retention_secs);
  EXPECT_EQ(from_settings.audit_retention_secs, plain.audit_retention_secs);
}

TEST(ModuleOptionsTest, PoolModeReachesWorkersSchedulerAndReadiness) {
  config::Settings direct = Load({});
  EXPECT_EQ(WorkerOptionsFrom(direct).pool_mode, db::PoolMode::kSession);
  EXPECT_EQ(SchedulerOptionsFrom(direct).pool_mode, db::PoolMode::kSession);
  Result<supervisor::Supervisor::Options> o = SupervisorOptionsFrom(direct);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->readiness_note, "");  // /readyz as it always was
  EXPECT_EQ(NotificationsNote(direct),
            "notifications on: workers are woken by NOTIFY awc_jobs");

  config::Settings pooled = Load({{"AWC_DATABASE_POOL_MODE", "transaction"},
                                  {"AWC_WORKER_POLL_INTERVAL_MS", "250"}});
  EXPECT_EQ(WorkerOptionsFrom(pooled).pool_mode, db::PoolMode::kTransaction);
  EXPECT_EQ(SchedulerOptionsFrom(pooled).pool_mode, db::PoolMode::kTransaction);
  std::string note =
      "notifications off (AWC_DATABASE_POOL_MODE=transaction): workers find "
      "new jobs by polling every 250 ms (AWC_WORKER_POLL_INTERVAL_MS)";
  EXPECT_EQ(NotificationsNote(pooled), note);
  o = SupervisorOptionsFrom(pooled);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->readiness_note, note + "\n");
}

TEST(ModuleOptionsTest, StoreUrl) {
  Result<store::StoreUrl> url =
      StoreUrlFrom(Load({{"AWC_CAS_URL", "file:///srv/cas/"}}));
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(url->scheme, store::StoreUrl::Scheme::kFile);
  EXPECT_EQ(url->path, "/srv/cas");
  // Settings that did not come from Load(): the error names the setting.
  config::Settings unchecked;
  unchecked.cas_url = "ftp://x";
  EXPECT_EQ(
      StoreUrlFrom(unchecked).status().message().rfind("AWC_CAS_URL: ", 0), 0u);
}

TEST(ModuleOptionsTest, SupervisorGetsSlotsAndAParsedListenAddress) {
  Result<supervisor::Supervisor::Options> o = SupervisorOptionsFrom(Load(
      {{"AWC_WORKER_CONCURRENCY", "3"}, {"AWC_METRICS_LISTEN", "[::1]:9187"}}));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->slots, 3);
  EXPECT_EQ(o->drain_allowance, 300.0);  // one default lease
  ASSERT_TRUE(o->metrics_listen.has_value());
  EXPECT_EQ(o->metrics_listen->host, "::1");
  EXPECT_EQ(o->metrics_listen->port, 9187);

  o = SupervisorOptionsFrom(Load({}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->slots, 4);
  EXPECT_FALSE(o->metrics_listen.has_value());
  EXPECT_EQ(o->give_up_after, 300.0);

  // The probe of /readyz: the database, judged by its schema's version.
  o = SupervisorOptionsFrom(Load({{"DATABASE_URL", "postgresql://h/d"},
                                  {"AWC_WORKER_ID", "host-a"},
                                  {"AWC_WORKER_GIVE_UP_SECS", "0"}}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->give_up_after, 0.0);
  EXPECT_EQ(o->probe.conninfo, "postgresql://h/d");
  EXPECT_EQ(o->probe.application_name, "host-a-master");
  ASSERT_TRUE(o->probe.judge);
  ASSERT_EQ(o->probe.statements.size(), 2u);
  EXPECT_NE(o->probe.statements[0].sql.find("schema_migrations"),
            std::string::npos);
  EXPECT_FALSE(o->probe.statements[0].may_fail);
  // Then the worker ids on more than one host, which an older schema may
  // not be able to answer.
  EXPECT_NE(o->probe.statements[1].sql.find("awc.workers"), std::string::npos);
  EXPECT_TRUE(o->probe.statements[1].may_fail);
  db::Probe::Answer version{{{"1"}}};
  db::Probe::Answer clashes{
      {{"x", HostName()}, {"x", "other-host"}, {"y", "h1"}, {"y", "h2"}}};
  db::Probe::Verdict v = o->probe.judge({version, clashes});
  EXPECT_NE(v.problem, "");
  // Only the clash this host is part of.
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_EQ(v.warnings[0].rfind("worker id x is in use on 2 hosts: ", 0), 0u)
      << v.warnings[0];
  clashes.failed = true;
  EXPECT_TRUE(o->probe.judge({version, clashes}).warnings.empty());

  config::Settings unchecked;
  unchecked.metrics_listen = "nowhere";
  EXPECT_EQ(SupervisorOptionsFrom(unchecked).status().message().rfind(
                "AWC_METRICS_LISTEN: ", 0),
            0u);
}

}  // namespace
}  // namespace awc::options
