#include "common/host_name.h"
#include "config/config_test_fixture.h"

namespace awc::config {
namespace {

TEST_F(ConfigTest, DefaultsAreTheDocumentedOnes) {
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  // The defaults of awc-worker(8) and awc-worker.conf(5).
  EXPECT_EQ(s.database_url, "");
  EXPECT_EQ(s.cas_url, "");
  EXPECT_EQ(s.worker_id, DefaultWorkerId(HostName()));
  EXPECT_EQ(s.worker_concurrency, 4);
  EXPECT_EQ(s.worker_lease_secs, 300);
  EXPECT_EQ(s.worker_poll_interval_ms, 1000);
  EXPECT_EQ(s.worker_give_up_secs, 300);
  EXPECT_EQ(s.retention_grace_secs, 86400);
  EXPECT_EQ(s.gc_grace_secs, 86400);
  EXPECT_EQ(s.gc_batch_size, 1000);
  EXPECT_EQ(s.gc_canary_size, 10);
  EXPECT_FALSE(s.gc_dry_run);
  // Observability and S3 settings.
  EXPECT_EQ(s.metrics_listen, "");
  EXPECT_EQ(s.log_level, obs::LogLevel::kInfo);
  EXPECT_EQ(s.EffectiveS3Endpoint(), "https://s3.us-east-1.amazonaws.com");
  EXPECT_EQ(s.s3_region, "us-east-1");
  EXPECT_EQ(s.s3_access_key_id, "");
  EXPECT_EQ(s.s3_secret_access_key, "");
  EXPECT_FALSE(s.s3_force_path_style);
  EXPECT_EQ(s.s3_max_concurrency, 16);
  // Limits of manifests, closures and S3 requests.
  EXPECT_EQ(s.manifest_max_bytes, 16 * 1024 * 1024);
  EXPECT_EQ(s.closure_max_depth, 64);
  EXPECT_EQ(s.closure_max_objects, 10'000'000);
  EXPECT_EQ(s.s3_timeout_ms, 30000);
  // The scheduler's.
  EXPECT_TRUE(s.scheduler);
  EXPECT_EQ(s.scheduler_lease_secs, 30);
  EXPECT_EQ(s.scrub_interval_secs, 30 * 86400);
  EXPECT_EQ(s.scrub_max_per_run, 100);
  EXPECT_EQ(s.job_retention_secs, 7 * 86400);
  EXPECT_EQ(s.dead_letter_retention_secs, 30 * 86400);
  EXPECT_EQ(s.audit_retention_secs, 365 * 86400);
  EXPECT_EQ(s.config_file, "");
}

TEST_F(ConfigTest, EndpointDefaultFollowsTheRegion) {
  env_["AWC_S3_REGION"] = "eu-central-1";
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().EffectiveS3Endpoint(),
            "https://s3.eu-central-1.amazonaws.com");
  env_["AWC_S3_ENDPOINT"] = "http://127.0.0.1:9000";
  c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().EffectiveS3Endpoint(), "http://127.0.0.1:9000");
}

// Two hosts left at the default are two worker ids: the host's short
// name, in a form AWC_WORKER_ID's own check accepts.
TEST_F(ConfigTest, TheDefaultWorkerIdIsPerHost) {
  EXPECT_EQ(DefaultWorkerId("web-1"), "awc-worker.web-1");
  EXPECT_EQ(DefaultWorkerId("web-1.dc2.example.com"), "awc-worker.web-1");
  EXPECT_EQ(DefaultWorkerId("Build_7"), "awc-worker.Build_7");
  EXPECT_EQ(DefaultWorkerId("h\xc3\xa9te@x"), "awc-worker.h--te-x");
  EXPECT_EQ(DefaultWorkerId(""), "awc-worker.unknown");
  EXPECT_EQ(DefaultWorkerId(".local"), "awc-worker.unknown");
  std::string long_host(60, 'a');
  EXPECT_EQ(DefaultWorkerId(long_host), "awc-worker." + std::string(37, 'a'));
  for (const char* host : {"web-1", "h\xc3\xa9te@x", "", "x y"}) {
    env_ = {{"AWC_WORKER_ID", DefaultWorkerId(host)}};
    EXPECT_TRUE(Load().ok()) << host;
  }
  env_ = {{"AWC_WORKER_ID", DefaultWorkerId(long_host)}};
  EXPECT_TRUE(Load().ok()) << "longer than AWC_WORKER_ID allows";

  // Loaded: the host's, unless set; a value set is kept as it is.
  env_ = {};
  EXPECT_EQ(Load()->settings().worker_id, DefaultWorkerId(HostName()));
  env_ = {{"AWC_WORKER_ID", "awc-worker"}};
  EXPECT_EQ(Load()->settings().worker_id, "awc-worker");
}

TEST_F(ConfigTest, DescribeListsEverySettingWithDefaultSource) {
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<std::string> lines = c->Describe();
  EXPECT_EQ(lines.size(), std::size(kAllNames)) << Joined(lines);
  for (size_t i = 0; i < std::size(kAllNames) && i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(std::string(kAllNames[i]) + " = ", 0), 0u)
        << lines[i];
    Line l = Find(lines, kAllNames[i]);
    ASSERT_TRUE(l.found) << kAllNames[i] << "\n" << Joined(lines);
    EXPECT_EQ(l.source, "default") << kAllNames[i];
  }
  EXPECT_EQ(Find(lines, "AWC_WORKER_ID").value, DefaultWorkerId(HostName()));
  EXPECT_EQ(Find(lines, "AWC_WORKER_CONCURRENCY").value, "4");
  EXPECT_EQ(Find(lines, "AWC_WORKER_LEASE_SECS").value, "300");
  EXPECT_EQ(Find(lines, "AWC_WORKER_POLL_INTERVAL_MS").value, "1000");
  EXPECT_EQ(Find(lines, "AWC_RETENTION_GRACE_SECS").value, "86400");
  EXPECT_EQ(Find(lines, "AWC_GC_GRACE_SECS").value, "86400");
  EXPECT_EQ(Find(lines, "AWC_GC_BATCH_SIZE").value, "1000");
  EXPECT_EQ(Find(lines, "AWC_GC_CANARY_SIZE").value, "10");
  EXPECT_EQ(Find(lines, "AWC_GC_DRY_RUN").value, "false");
  EXPECT_EQ(Find(lines, "AWC_LOG_LEVEL").value, "info");
  EXPECT_EQ(Find(lines, "AWC_S3_REGION").value, "us-east-1");
  EXPECT_EQ(Find(lines, "AWC_S3_FORCE_PATH_STYLE").value, "false");
  EXPECT_EQ(Find(lines, "AWC_S3_MAX_CONCURRENCY").value, "16");
  EXPECT_EQ(Find(lines, "DATABASE_URL").value, "");
  EXPECT_EQ(Find(lines, "AWC_METRICS_LISTEN").value, "");
  EXPECT_EQ(Find(lines, "AWC_SCHEDULER").value, "on");
  EXPECT_EQ(Find(lines, "AWC_AUDIT_RETENTION_SECS").value, "31536000");
  // -t shows the endpoint that will actually be used.
  EXPECT_EQ(Find(lines, "AWC_S3_ENDPOINT").value,
            "https://s3.us-east-1.amazonaws.com");
}

// --- environment and INI layers ---------------------------------------------

TEST_F(ConfigTest, EnvironmentSetsEverySetting) {
  std::string key_file = Write("key_id", "AKIDFROMFILE\n");
  env_ = {
      {"DATABASE_URL", "postgresql://u@db.example:5432/awc"},
      {"AWC_MIGRATE", "check"},
      {"AWC_DATABASE_POOL_MODE", "transaction"},
      {"AWC_PRODUCTION", "true"},
      {"AWC_CAS_URL", "file:///srv/cas"},
      {"AWC_CAS_REPAIR_URL", "s3://replica/cas"},
      {"AWC_WORKER_ID", "host-a"},
      {"AWC_WORKER_CONCURRENCY", "8"},
      {"AWC_WORKER_BACKGROUND_CONCURRENCY", "3"},
      {"AWC_WORKER_LEASE_SECS", "60"},
      {"AWC_WORKER_POLL_INTERVAL_MS", "250"},
      {"AWC_WORKER_GIVE_UP_SECS", "0"},
      {"AWC_WORKER_HEARTBEAT_SECS", "4"},
      {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "12"},
      {"AWC_RETENTION_GRACE_SECS", "3600"},
      {"AWC_GC_GRACE_SECS", "7200"},
      {"AWC_GC_BATCH_SIZE", "500"},
      {"AWC_GC_CANARY_SIZE", "5"},
      {"AWC_GC_DRY_RUN", "true"},
      {"AWC_METRICS_LISTEN", "127.0.0.1:9187"},
      {"AWC_LOG_LEVEL", "debug"},
      {"AWC_S3_ENDPOINT", "http://127.0.0.1:4568"},
      {"AWC_S3_REGION", "eu-west-1"},
      {"AWC_S3_ACCESS_KEY_ID_FILE", key_file},
      {"AWC_S3_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG"},
      {"AWC_S3_FORCE_PATH_STYLE", "1"},
      {"AWC_S3_REPAIR_ENDPOINT", "http://127.0.0.1:4569"},
      {"AWC_S3_REPAIR_REGION", "eu-central-1"},
      {"AWC_S3_REPAIR_ACCESS_KEY_ID", "AKIDREPAIR"},
      {"AWC_S3_REPAIR_SECRET_ACCESS_KEY", "r3pairS3cret"},
      {"AWC_S3_MAX_CONCURRENCY", "32"},
      {"AWC_S3_TIMEOUT_MS", "5000"},
      {"AWC_MANIFEST_MAX_BYTES", "1048576"},
      {"AWC_CLOSURE_MAX_DEPTH", "16"},
      {"AWC_CLOSURE_MAX_OBJECTS", "1000"},
      {"AWC_SCHEDULER", "off"},
      {"AWC_SCHEDULER_LEASE_SECS", "9"},
      {"AWC_SCRUB_INTERVAL_SECS", "3600"},
      {"AWC_SCRUB_MAX_PER_RUN", "7"},
      {"AWC_SCRUB_BUDGET_MB_PER_SEC", "50"},
      {"AWC_SCRUB_BUDGET_OBJECTS_PER_SEC", "2000"},
      {"AWC_JOB_RETENTION_SECS", "600"},
      {"AWC_DEAD_LETTER_RETENTION_SECS", "1200"},
      {"AWC_AUDIT_RETENTION_SECS", "0"},
  };
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  EXPECT_EQ(s.database_url, "postgresql://u@db.example:5432/awc");
  EXPECT_EQ(s.migrate, "check");
  EXPECT_EQ(s.DatabasePoolMode(), db::PoolMode::kTransaction);
  EXPECT_TRUE(s.production);
  EXPECT_EQ(s.cas_url, "file:///srv/cas");
  EXPECT_EQ(s.cas_repair_url, "s3://replica/cas");
  EXPECT_EQ(s.s3_repair_endpoint, "http://127.0.0.1:4569");
  EXPECT_EQ(s.s3_repair_region, "eu-central-1");
  EXPECT_EQ(s.s3_repair_access_key_id, "AKIDREPAIR");
  EXPECT_EQ(s.s3_repair_secret_access_key, "r3pairS3cret");
  EXPECT_EQ(s.worker_id, "host-a");
  EXPECT_EQ(s.worker_concurrency, 8);
  EXPECT_EQ(s.worker_background_concurrency, 3);
  EXPECT_EQ(s.worker_lease_secs, 60);
  EXPECT_EQ(s.worker_poll_interval_ms, 250);
  EXPECT_EQ(s.worker_give_up_secs, 0);
  EXPECT_EQ(s.worker_heartbeat_secs, 4);
  EXPECT_EQ(s.worker_heartbeat_timeout_secs, 12);
  EXPECT_EQ(s.retention_grace_secs, 3600);
  EXPECT_EQ(s.gc_grace_secs, 7200);
  EXPECT_EQ(s.gc_batch_size, 500);
  EXPECT_EQ(s.gc_canary_size, 5);
  EXPECT_TRUE(s.gc_dry_run);
  EXPECT_EQ(s.metrics_listen, "127.0.0.1:9187");
  EXPECT_EQ(s.log_level, obs::LogLevel::kDebug);
  EXPECT_EQ(s.s3_endpoint, "http://127.0.0.1:4568");
  EXPECT_EQ(s.s3_region, "eu-west-1");
  EXPECT_EQ(s.s3_access_key_id, "AKIDFROMFILE");
  EXPECT_EQ(s.s3_secret_access_key, "wJalrXUtnFEMI/K7MDENG");
  EXPECT_TRUE(s.s3_force_path_style);
  EXPECT_EQ(s.s3_max_concurrency, 32);
  EXPECT_EQ(s.s3_timeout_ms, 5000);
  EXPECT_EQ(s.manifest_max_bytes, 1048576);
  EXPECT_EQ(s.closure_max_depth, 16);
  EXPECT_EQ(s.closure_max_objects, 1000);
  EXPECT_FALSE(s.scheduler);
  EXPECT_EQ(s.scheduler_lease_secs, 9);
  EXPECT_EQ(s.scrub_interval_secs, 3600);
  EXPECT_EQ(s.scrub_max_per_run, 7);
  EXPECT_EQ(s.scrub_budget_mb_per_sec, 50);
  EXPECT_EQ(s.scrub_budget_objects_per_sec, 2000);
  EXPECT_EQ(s.job_retention_secs, 600);
  EXPECT_EQ(s.dead_letter_retention_secs, 1200);
  EXPECT_EQ(s.audit_retention_secs, 0);

  std::vector<std::string> lines = c->Describe();
  for (const char* name : kAllNames) {
    Line l = Find(lines, name);
    ASSERT_TRUE(l.found) << name;
    EXPECT_EQ(l.source, "environment") << name;
  }
  EXPECT_EQ(Find(lines, "AWC_WORKER_CONCURRENCY").value, "8");
  EXPECT_EQ(Find(lines, "AWC_GC_DRY_RUN").value, "true");
  EXPECT_EQ(Find(lines, "AWC_SCHEDULER").value, "off");
  EXPECT_EQ(Find(lines, "AWC_LOG_LEVEL").value, "debug");
  EXPECT_EQ(Find(lines, "AWC_S3_ACCESS_KEY_ID").value, "AKIDFROMFILE");
  EXPECT_EQ(Find(lines, "AWC_S3_SECRET_ACCESS_KEY").value, "********");
  EXPECT_EQ(Find(lines, "AWC_S3_REPAIR_SECRET_ACCESS_KEY").value, "********");
  EXPECT_EQ(Find(lines, "AWC_S3_ENDPOINT").value, "http://127.0.0.1:4568");
}

TEST_F(ConfigTest, IniFileSetsEverySetting) {
  std::string secret = Write("secret", "SECRETFROMFILE\r\n");
  std::string ini = Write("awc.conf",
                          "; awc-worker configuration\n"
                          "[database]\n"
                          "url = postgresql://u@db.example/awc\n"
                          "migrate = check\n"
                          "pool_mode = transaction\n"
                          "production = 1\n"
                          "[cas]\n"
                          "url = memory://\n"
                          "repair_url = file:///srv/replica\n"
                          "manifest_max_bytes = 4096\n"
                          "closure_max_depth = 8\n"
                          "closure_max_objects = 99\n"
                          "[worker]\n"
                          "id = host-b\n"
                          "concurrency = 2\n"
                          "background_concurrency = 1\n"
                          "lease_secs = 30\n"
                          "poll_interval_ms = 100\n"
                          "give_up_secs = 60\n"
                          "heartbeat_secs = 5\n"
                          "heartbeat_timeout_secs = 20\n"
                          "# another comment\n"
                          "[retention]\n"
                          "grace_secs = 10\n"
                          "[gc]\n"
                          "grace_secs = 20\n"
                          "batch_size = 40\n"
                          "canary_size = 4\n"
                          "dry_run = TRUE\n"
                          "[metrics]\n"
                          "listen = [::1]:9100\n"
                          "[log]\n"
                          "level = error\n"
                          "[s3]\n"
                          "endpoint = http://minio:9000\n"
                          "region = ap-south-1\n"
                          "access_key_id = AKIDINI\n"
                          "secret_access_key_file = " +
                              secret +
                              "\n"
                              "force_path_style = true\n"
                              "repair_endpoint = http://replica:9000\n"
                              "repair_region = us-west-2\n"
                              "repair_access_key_id = AKIDREP\n"
                              "repair_secret_access_key = SECREP\n"
                              "max_concurrency = 4\n"
                              "timeout_ms = 1000\n"
                              "[scheduler]\n"
                              "enabled = off\n"
                              "lease_secs = 12\n"
                              "[scrub]\n"
                              "interval_secs = 60\n"
                              "max_per_run = 3\n"
                              "budget_mb_per_sec = 5\n"
                              "budget_objects_per_sec = 300\n"
                              "[job]\n"
                              "retention_secs = 61\n"
                              "[dead_letter]\n"
                              "retention_secs = 62\n"
                              "[audit]\n"
                              "retention_secs = 63\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  EXPECT_EQ(s.config_file, ini);
  EXPECT_EQ(s.database_url, "postgresql://u@db.example/awc");
  EXPECT_EQ(s.migrate, "check");
  EXPECT_EQ(s.database_pool_mode, "transaction");
  EXPECT_TRUE(s.production);
  EXPECT_EQ(s.cas_url, "memory://");
  EXPECT_EQ(s.cas_repair_url, "file:///srv/replica");
  EXPECT_EQ(s.s3_repair_endpoint, "http://replica:9000");
  EXPECT_EQ(s.s3_repair_region, "us-west-2");
  EXPECT_EQ(s.s3_repair_access_key_id, "AKIDREP");
  EXPECT_EQ(s.s3_repair_secret_access_key, "SECREP");
  EXPECT_EQ(s.manifest_max_bytes, 4096);
  EXPECT_EQ(s.closure_max_depth, 8);
  EXPECT_EQ(s.closure_max_objects, 99);
  EXPECT_EQ(s.worker_id, "host-b");
  EXPECT_EQ(s.worker_concurrency, 2);
  EXPECT_EQ(s.worker_background_concurrency, 1);
  EXPECT_EQ(s.worker_lease_secs, 30);
  EXPECT_EQ(s.worker_poll_interval_ms, 100);
  EXPECT_EQ(s.worker_give_up_secs, 60);
  EXPECT_EQ(s.worker_heartbeat_secs, 5);
  EXPECT_EQ(s.worker_heartbeat_timeout_secs, 20);
  EXPECT_EQ(s.retention_grace_secs, 10);
  EXPECT_EQ(s.gc_grace_secs, 20);
  EXPECT_EQ(s.gc_batch_size, 40);
  EXPECT_EQ(s.gc_canary_size, 4);
  EXPECT_TRUE(s.gc_dry_run);
  EXPECT_EQ(s.metrics_listen, "[::1]:9100");
  EXPECT_EQ(s.log_level, obs::LogLevel::kError);
  EXPECT_EQ(s.s3_endpoint, "http://minio:9000");
  EXPECT_EQ(s.s3_region, "ap-south-1");
  EXPECT_EQ(s.s3_access_key_id, "AKIDINI");
  EXPECT_EQ(s.s3_secret_access_key, "SECRETFROMFILE");
  EXPECT_TRUE(s.s3_force_path_style);
  EXPECT_EQ(s.s3_max_concurrency, 4);
  EXPECT_EQ(s.s3_timeout_ms, 1000);
  EXPECT_FALSE(s.scheduler);
  EXPECT_EQ(s.scheduler_lease_secs, 12);
  EXPECT_EQ(s.scrub_interval_secs, 60);
  EXPECT_EQ(s.scrub_max_per_run, 3);
  EXPECT_EQ(s.scrub_budget_mb_per_sec, 5);
  EXPECT_EQ(s.scrub_budget_objects_per_sec, 300);
  EXPECT_EQ(s.job_retention_secs, 61);
  EXPECT_EQ(s.dead_letter_retention_secs, 62);
  EXPECT_EQ(s.audit_retention_secs, 63);

  std::vector<std::string> lines = c->Describe();
  for (const char* name : kAllNames) {
    Line l = Find(lines, name);
    ASSERT_TRUE(l.found) << name;
    EXPECT_EQ(l.source, "file " + ini) << name;
  }
  EXPECT_EQ(Scrub("key SECRETFROMFILE"), "key ********");
}

TEST_F(ConfigTest, PrecedenceIsDefaultThenIniThenEnvironment) {
  std::string ini = Write("awc.ini",
                          "[worker]\n"
                          "concurrency = 6\n"
                          "lease_secs = 120\n"
                          "[gc]\n"
                          "dry_run = true\n");
  env_["AWC_WORKER_CONCURRENCY"] = "12";
  env_["AWC_GC_DRY_RUN"] = "false";
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  EXPECT_EQ(s.worker_concurrency, 12);  // environment beats the file
  EXPECT_FALSE(s.gc_dry_run);           // also when it restores a default
  EXPECT_EQ(s.worker_lease_secs, 120);  // file beats the default
  EXPECT_EQ(s.worker_poll_interval_ms, 1000);  // default
  std::vector<std::string> lines = c->Describe();
  EXPECT_EQ(Find(lines, "AWC_WORKER_CONCURRENCY").source, "environment");
  EXPECT_EQ(Find(lines, "AWC_WORKER_CONCURRENCY").value, "12");
  EXPECT_EQ(Find(lines, "AWC_GC_DRY_RUN").source, "environment");
  EXPECT_EQ(Find(lines, "AWC_WORKER_LEASE_SECS").source, "file " + ini);
  EXPECT_EQ(Find(lines, "AWC_WORKER_LEASE_SECS").value, "120");
  EXPECT_EQ(Find(lines, "AWC_WORKER_POLL_INTERVAL_MS").source, "default");
}

TEST_F(ConfigTest, AwcConfigNamesTheFileUnlessAPathIsGiven) {
  std::string from_env = Write("env.ini", "[worker]\nconcurrency = 3\n");
  std::string explicit_path = Write("cli.ini", "[worker]\nconcurrency = 5\n");
  env_["AWC_CONFIG"] = from_env;

  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 3);
  EXPECT_EQ(c->settings().config_file, from_env);

  c = Load(explicit_path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 5);
  EXPECT_EQ(c->settings().config_file, explicit_path);

  // A broken AWC_CONFIG does not matter when -c names another file.
  env_["AWC_CONFIG"] = dir_ + "/missing.ini";
  c = Load(explicit_path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 5);
}

TEST_F(ConfigTest, MissingIniFileIsAnError) {
  std::string missing = dir_ + "/nope.ini";
  std::string err = LoadError(missing);
  EXPECT_NE(err.find(missing), std::string::npos) << err;
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;

  env_["AWC_CONFIG"] = missing;
  err = LoadError();
  EXPECT_NE(err.find(missing), std::string::npos) << err;
}

TEST_F(ConfigTest, IniPathThatIsADirectoryIsAnError) {
  std::string err = LoadError(dir_);
  EXPECT_NE(err.find(dir_), std::string::npos) << err;
}

TEST_F(ConfigTest, EmptyIniFileLeavesDefaults) {
  std::string ini = Write("empty.ini", "\n; nothing here\n\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 4);
  EXPECT_EQ(c->settings().config_file, ini);
}

// --- value errors ------------------------------------------------------------

TEST_F(ConfigTest, DescribeRedactsUrlPasswordAndS3Secret) {
  env_ = {{"DATABASE_URL", "postgresql://u:s3cretpw@h:5/db"},
          {"AWC_S3_SECRET_ACCESS_KEY", "AbCdEfSecretKey"},
          {"AWC_S3_ACCESS_KEY_ID", "AKIAEXAMPLE"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<std::string> lines = c->Describe();
  std::string all = Joined(lines);
  EXPECT_EQ(all.find("s3cretpw"), std::string::npos) << all;
  EXPECT_EQ(all.find("AbCdEfSecretKey"), std::string::npos) << all;
  EXPECT_EQ(Find(lines, "DATABASE_URL").value,
            "postgresql://u:********@h:5/db");
  EXPECT_EQ(Find(lines, "AWC_S3_SECRET_ACCESS_KEY").value, "********");
  EXPECT_EQ(Find(lines, "AWC_S3_ACCESS_KEY_ID").value, "AKIAEXAMPLE");
  // Load registered both secrets for every later output.
  EXPECT_EQ(Scrub("pw=s3cretpw key=AbCdEfSecretKey"),
            "pw=******** key=********");
}

TEST_F(ConfigTest, DescribeRedactsKeyValuePassword) {
  env_ = {{"DATABASE_URL", "host=h password=s3cretpw dbname=d"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::string all = Joined(c->Describe());
  EXPECT_EQ(all.find("s3cretpw"), std::string::npos) << all;
  std::string url = Find(c->Describe(), "DATABASE_URL").value;
  EXPECT_NE(url.find("host=h"), std::string::npos) << url;
  EXPECT_NE(url.find("dbname=d"), std::string::npos) << url;
  EXPECT_NE(url.find("password=********"), std::string::npos) << url;
  EXPECT_EQ(Scrub("s3cretpw"), "********");
}

TEST_F(ConfigTest, DescribeRedactsAnUnencodedBase64Password) {
  env_ = {{"DATABASE_URL", "postgresql://u:wJalr/K7MD+ENG@h:5432/db"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::string all = Joined(c->Describe());
  EXPECT_EQ(all.find("K7MD"), std::string::npos) << all;
}

TEST_F(ConfigTest, DescribeRedactsSecretsFromTheIniFile) {
  std::string ini = Write("x.ini",
                          "[database]\nurl = postgresql://u:s3cretpw@h/db\n"
                          "[s3]\nsecret_access_key = IniSecretKey\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::string all = Joined(c->Describe());
  EXPECT_EQ(all.find("s3cretpw"), std::string::npos) << all;
  EXPECT_EQ(all.find("IniSecretKey"), std::string::npos) << all;
}

// Each setting is one line of -t: a control byte is shown as \xHH, in the
// source (a configuration file's name may hold one) as in a value (none
// loads with one; a value set in code might).
TEST_F(ConfigTest, DescribeShowsEachSettingOnOneLine) {
  std::string ini = Write("awc\nAWC_GC_DRY_RUN = true # environment.conf",
                          "[worker]\nid = w1\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  c->mutable_settings().cas_url = "memory://\nAWC_GC_DRY_RUN = true\x7f";
  std::vector<std::string> lines = c->Describe();
  ASSERT_EQ(lines.size(), std::size(kAllNames));
  for (size_t n = 0; n < lines.size(); ++n) {
    EXPECT_TRUE(lines[n].starts_with(std::string(kAllNames[n]) + " = "))
        << lines[n];
    for (char ch : lines[n]) {
      EXPECT_TRUE(static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f)
          << lines[n];
    }
  }
  EXPECT_EQ(
      Find(lines, "AWC_WORKER_ID").source,
      "file " + dir_ + "/awc\\x0aAWC_GC_DRY_RUN = true # environment.conf");
  EXPECT_EQ(Find(lines, "AWC_CAS_URL").value,
            "memory://\\x0aAWC_GC_DRY_RUN = true\\x7f");
}

TEST_F(ConfigTest, NoPasswordRegistersNothing) {
  env_ = {{"DATABASE_URL", "postgresql://u@h/db"}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("postgresql://u@h/db"), "postgresql://u@h/db");
}

// --- RequireDaemon
// -------------------------------------------

std::string Messages(const std::vector<Status>& errors) {
  std::string out;
  for (const Status& s : errors) out += s.message() + "\n";
  return out;
}

// Each setting that is not set is named, not only the first.
TEST(RequireDaemonTest, NeedsDatabaseUrlAndCasUrl) {
  Settings s;
  EXPECT_EQ(Messages(RequireDaemon(s)),
            "DATABASE_URL is not set\nAWC_CAS_URL is not set\n");
  s.database_url = "postgresql://h/db";
  EXPECT_EQ(Messages(RequireDaemon(s)), "AWC_CAS_URL is not set\n");
  s.cas_url = "memory://";
  EXPECT_TRUE(RequireDaemon(s).empty());
  s.database_url.clear();
  EXPECT_EQ(Messages(RequireDaemon(s)), "DATABASE_URL is not set\n");
}

}  // namespace
}  // namespace awc::config
