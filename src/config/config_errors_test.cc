#include "config/config_test_fixture.h"

namespace awc::config {
namespace {

TEST_F(ConfigTest, NonIntegerNamesTheSetting) {
  env_["AWC_WORKER_CONCURRENCY"] = "four";
  EXPECT_EQ(LoadError(), "AWC_WORKER_CONCURRENCY: \"four\" is not an integer");
}

TEST_F(ConfigTest, EveryIntegerSettingRejectsGarbage) {
  const char* const ints[] = {"AWC_WORKER_CONCURRENCY",
                              "AWC_WORKER_LEASE_SECS",
                              "AWC_WORKER_POLL_INTERVAL_MS",
                              "AWC_RETENTION_GRACE_SECS",
                              "AWC_GC_GRACE_SECS",
                              "AWC_GC_BATCH_SIZE",
                              "AWC_GC_CANARY_SIZE",
                              "AWC_S3_MAX_CONCURRENCY",
                              "AWC_S3_TIMEOUT_MS",
                              "AWC_MANIFEST_MAX_BYTES",
                              "AWC_CLOSURE_MAX_DEPTH",
                              "AWC_CLOSURE_MAX_OBJECTS",
                              "AWC_WORKER_GIVE_UP_SECS",
                              "AWC_WORKER_HEARTBEAT_SECS",
                              "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS"};
  for (const char* name : ints) {
    for (const char* bad : {"12x", "1.5", " 5", "0x10", "", "-", "1e3"}) {
      env_ = {{name, bad}};
      std::string err = LoadError();
      EXPECT_EQ(err.rfind(std::string(name) + ": ", 0), 0u)
          << name << "=" << bad << " -> " << err;
    }
  }
}

TEST_F(ConfigTest, IntegerOverflowIsAnError) {
  env_["AWC_GC_GRACE_SECS"] = "99999999999999999999999";
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_GC_GRACE_SECS: ", 0), 0u) << err;
}

TEST_F(ConfigTest, OutOfRangeValuesAreErrors) {
  struct Case {
    const char* name;
    const char* value;
  };
  const Case cases[] = {
      {"AWC_WORKER_CONCURRENCY", "0"},
      {"AWC_WORKER_CONCURRENCY", "-3"},
      {"AWC_WORKER_CONCURRENCY", "100000"},
      {"AWC_WORKER_LEASE_SECS", "-1"},
      {"AWC_WORKER_LEASE_SECS", "0"},
      {"AWC_WORKER_POLL_INTERVAL_MS", "9"},
      {"AWC_WORKER_POLL_INTERVAL_MS", "0"},
      {"AWC_WORKER_GIVE_UP_SECS", "-1"},
      {"AWC_WORKER_GIVE_UP_SECS", "604801"},
      {"AWC_WORKER_HEARTBEAT_SECS", "0"},
      {"AWC_WORKER_HEARTBEAT_SECS", "31"},
      {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "-1"},
      {"AWC_RETENTION_GRACE_SECS", "-1"},
      {"AWC_GC_GRACE_SECS", "-86400"},
      {"AWC_GC_BATCH_SIZE", "0"},
      {"AWC_GC_CANARY_SIZE", "-1"},
      {"AWC_S3_MAX_CONCURRENCY", "0"},
      {"AWC_CLOSURE_MAX_DEPTH", "0"},
  };
  for (const Case& c : cases) {
    env_ = {{c.name, c.value}};
    std::string err = LoadError();
    EXPECT_EQ(
        err.rfind(std::string(c.name) + ": " + c.value + " is out of range (",
                  0),
        0u)
        << err;
  }
  env_ = {{"AWC_WORKER_CONCURRENCY", "0"}};
  EXPECT_EQ(LoadError(), "AWC_WORKER_CONCURRENCY: 0 is out of range (1..1024)");
}

TEST_F(ConfigTest, AHeartbeatTimeoutShorterThanThreeHeartbeatsIsRefused) {
  // A live worker could lose its job to a write that was merely late.
  env_ = {{"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "29"}};
  EXPECT_EQ(LoadError(),
            "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS: 29 is less than three "
            "heartbeats (3 x AWC_WORKER_HEARTBEAT_SECS = 30); 0 turns it off");
  env_ = {{"AWC_WORKER_HEARTBEAT_SECS", "2"},
          {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "6"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_heartbeat_timeout_secs, 6);
  env_ = {{"AWC_WORKER_HEARTBEAT_SECS", "30"},
          {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "0"}};
  EXPECT_TRUE(Load().ok()) << "0 turns it off whatever the heartbeat";
}

TEST_F(ConfigTest, RangeBoundsAreInclusive) {
  env_ = {{"AWC_WORKER_CONCURRENCY", "1"},
          {"AWC_WORKER_POLL_INTERVAL_MS", "10"},
          {"AWC_WORKER_LEASE_SECS", "1"},
          {"AWC_GC_GRACE_SECS", "0"},
          {"AWC_GC_CANARY_SIZE", "0"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 1);
  EXPECT_EQ(c->settings().worker_poll_interval_ms, 10);
  EXPECT_EQ(c->settings().gc_grace_secs, 0);
  EXPECT_EQ(c->settings().gc_canary_size, 0);
  env_ = {{"AWC_WORKER_CONCURRENCY", "1024"}};
  EXPECT_TRUE(Load().ok());
  env_ = {{"AWC_WORKER_CONCURRENCY", "1025"}};
  EXPECT_FALSE(Load().ok());
}

TEST_F(ConfigTest, AnEmptyValueIsAnErrorForEverySetting) {
  // AWC_GC_DRY_RUN= must not quietly mean false, nor AWC_CAS_URL= "unset".
  for (const char* name : kAllNames) {
    env_ = {{name, ""}};
    EXPECT_EQ(LoadError(), std::string(name) +
                               ": empty value; leave the setting unset to use "
                               "its default")
        << name;
  }
  env_ = {{"AWC_CONFIG", ""}};
  EXPECT_EQ(LoadError(),
            "AWC_CONFIG: empty value; leave the setting unset to use its "
            "default");
  env_ = {};
  std::string ini = Write("x.ini", "[worker]\nid = a\n[gc]\ndry_run =\n");
  EXPECT_EQ(LoadError(ini), ini +
                                ":4: [gc] dry_run (AWC_GC_DRY_RUN): empty "
                                "value; leave the setting unset to use its "
                                "default");
  // And an empty _FILE.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("empty", "\n")}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_SECRET_ACCESS_KEY: empty value; leave the setting unset "
            "to use its default");
}

TEST_F(ConfigTest, DryRunAcceptsExactlyTheReferenceSpellings) {
  for (const char* t : {"1", "true", "TRUE"}) {
    env_ = {{"AWC_GC_DRY_RUN", t}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << t << ": " << c.status().ToString();
    EXPECT_TRUE(c->settings().gc_dry_run) << t;
  }
  for (const char* f : {"0", "false", "FALSE"}) {
    env_ = {{"AWC_GC_DRY_RUN", f}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << f << ": " << c.status().ToString();
    EXPECT_FALSE(c->settings().gc_dry_run) << "\"" << f << "\"";
  }
  for (const char* bad : {"yes", "True", "on", "2", " true", "t"}) {
    env_ = {{"AWC_GC_DRY_RUN", bad}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind("AWC_GC_DRY_RUN: ", 0), 0u) << bad << " -> " << err;
    EXPECT_NE(err.find("not a boolean"), std::string::npos) << err;
  }
}

TEST_F(ConfigTest, SchedulerIsOnOrOff) {
  for (const char* t : {"on", "1", "true", "TRUE"}) {
    env_ = {{"AWC_SCHEDULER", t}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << t << ": " << c.status().ToString();
    EXPECT_TRUE(c->settings().scheduler) << t;
  }
  for (const char* f : {"off", "0", "false", "FALSE"}) {
    env_ = {{"AWC_SCHEDULER", f}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << f << ": " << c.status().ToString();
    EXPECT_FALSE(c->settings().scheduler) << f;
  }
  for (const char* bad : {"yes", "ON", "Off", "2", " on"}) {
    env_ = {{"AWC_SCHEDULER", bad}};
    std::string err = LoadError();
    EXPECT_EQ(err, std::string("AWC_SCHEDULER: \"") + bad +
                       "\" is not on or off (also 1, true, TRUE, 0, false, "
                       "FALSE)")
        << err;
  }
  // The other booleans keep the reference's spellings only.
  env_ = {{"AWC_GC_DRY_RUN", "on"}};
  EXPECT_NE(LoadError().find("not a boolean"), std::string::npos);
}

TEST_F(ConfigTest, SchedulerRangesAreChecked) {
  const std::pair<const char*, const char*> bad[] = {
      {"AWC_SCHEDULER_LEASE_SECS", "0"},
      {"AWC_SCHEDULER_LEASE_SECS", "86401"},
      {"AWC_SCRUB_MAX_PER_RUN", "0"},
      {"AWC_SCRUB_INTERVAL_SECS", "-1"},
      {"AWC_JOB_RETENTION_SECS", "4000000000"},
      {"AWC_DEAD_LETTER_RETENTION_SECS", "x"},
      {"AWC_AUDIT_RETENTION_SECS", "-5"},
  };
  for (const auto& [name, value] : bad) {
    env_ = {{name, value}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind(std::string(name) + ": ", 0), 0u)
        << name << "=" << value << " -> " << err;
  }
}

TEST_F(ConfigTest, BadBooleanForPathStyle) {
  env_["AWC_S3_FORCE_PATH_STYLE"] = "yes";
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_FORCE_PATH_STYLE: \"yes\" is not a boolean", 0),
            0u)
      << err;
}

TEST_F(ConfigTest, LogLevels) {
  const std::pair<const char*, obs::LogLevel> ok[] = {
      {"debug", obs::LogLevel::kDebug},
      {"info", obs::LogLevel::kInfo},
      {"warn", obs::LogLevel::kWarn},
      {"error", obs::LogLevel::kError}};
  for (const auto& [name, level] : ok) {
    env_ = {{"AWC_LOG_LEVEL", name}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << name;
    EXPECT_EQ(c->settings().log_level, level) << name;
  }
  for (const char* bad : {"verbose", "trace", "fatal"}) {
    env_ = {{"AWC_LOG_LEVEL", bad}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind("AWC_LOG_LEVEL: ", 0), 0u) << err;
    EXPECT_NE(err.find("debug, info, warn, error"), std::string::npos) << err;
  }
}

TEST_F(ConfigTest, BadListenAddress) {
  for (const char* bad : {"localhost", "host:", "host:0", "host:65536",
                          "host:http", "[::1]", "[::1]9100", "::1"}) {
    env_ = {{"AWC_METRICS_LISTEN", bad}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind("AWC_METRICS_LISTEN: ", 0), 0u) << bad << " -> " << err;
  }
  env_ = {{"AWC_METRICS_LISTEN", ":9187"}};
  EXPECT_TRUE(Load().ok());
}

TEST_F(ConfigTest, BadWorkerId) {
  for (const char* bad :
       {"", "has space", "slash/id", "quote\"", "\xc3\xa9t\xc3\xa9",
        "0123456789012345678901234567890123456789012345678"}) {
    env_ = {{"AWC_WORKER_ID", bad}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind("AWC_WORKER_ID: ", 0), 0u) << bad << " -> " << err;
  }
  // 48 characters and the allowed punctuation are fine.
  env_ = {
      {"AWC_WORKER_ID", "A.b_c-9-0123456789012345678901234567890123456789"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_id.size(), 48u);
}

TEST_F(ConfigTest, InvalidDatabaseUrlDoesNotEchoIt) {
  const char* const bad[] = {
      "postgresql://u:s3cretpw@h:5/db?nosuchoption=1",
      "host=h password=s3cretpw bogus_keyword=1",
      "host=h password='s3cretpw",
  };
  for (const char* url : bad) {
    env_ = {{"DATABASE_URL", url}};
    std::string err = LoadError();
    EXPECT_EQ(err.rfind("DATABASE_URL: ", 0), 0u) << err;
    EXPECT_EQ(err.find("s3cretpw"), std::string::npos) << err;
    EXPECT_EQ(err.find("h:5"), std::string::npos) << err;
    EXPECT_NE(err.find("not a valid PostgreSQL connection string"),
              std::string::npos)
        << err;
  }
}

TEST_F(ConfigTest, CanaryLargerThanBatchIsAnError) {
  env_ = {{"AWC_GC_BATCH_SIZE", "5"}, {"AWC_GC_CANARY_SIZE", "6"}};
  std::string err = LoadError();
  EXPECT_EQ(err, "AWC_GC_CANARY_SIZE: 6 is larger than AWC_GC_BATCH_SIZE (5)");
  env_ = {{"AWC_GC_BATCH_SIZE", "5"}, {"AWC_GC_CANARY_SIZE", "5"}};
  EXPECT_TRUE(Load().ok());
  // The check applies to the combined layers: file batch, env canary.
  std::string ini = Write("gc.ini", "[gc]\nbatch_size = 3\n");
  env_ = {{"AWC_GC_CANARY_SIZE", "4"}};
  EXPECT_NE(LoadError(ini).find("AWC_GC_CANARY_SIZE"), std::string::npos);
}

// LoadAll() reads on past an error: every value's error, the file's
// first; the checks across settings once every value was read.
TEST_F(ConfigTest, LoadAllFindsEveryError) {
  auto errors = [&](const std::string& path = "") {
    std::string out;
    for (const Status& s : Config::LoadAll(path, LookupIn(env_)).errors) {
      out += s.message() + "\n";
    }
    return out;
  };
  std::string ini = Write("bad.ini", "[worker]\nconcurency = 3\nid = x y\n");
  env_ = {{"AWC_WORKER_CONCURRENCY", "four"},
          {"AWC_CAS_URL", "ftp://x"},
          {"AWC_GC_BATCH_SIZE", "5"},
          {"AWC_GC_CANARY_SIZE", "6"}};
  EXPECT_EQ(errors(ini), ini +
                             ":2: unknown key \"concurency\" in section "
                             "[worker]\n"
                             "AWC_CAS_URL: unsupported scheme \"ftp://\" "
                             "(expected memory://, file:///absolute/path or "
                             "s3://bucket[/prefix])\n"
                             "AWC_WORKER_CONCURRENCY: \"four\" is not an "
                             "integer\n");
  // Load() returns the first.
  EXPECT_EQ(LoadError(ini), ini +
                                ":2: unknown key \"concurency\" in section "
                                "[worker]");
  // Every value read: each check across settings.
  env_ = {{"AWC_GC_BATCH_SIZE", "5"},
          {"AWC_GC_CANARY_SIZE", "6"},
          {"AWC_WORKER_HEARTBEAT_SECS", "10"},
          {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "20"}};
  EXPECT_EQ(errors(),
            "AWC_GC_CANARY_SIZE: 6 is larger than AWC_GC_BATCH_SIZE (5)\n"
            "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS: 20 is less than three "
            "heartbeats (3 x AWC_WORKER_HEARTBEAT_SECS = 30); 0 turns it "
            "off\n");
  env_.clear();
  EXPECT_EQ(errors(), "");
}

TEST_F(ConfigTest, MigrateModeAndProduction) {
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().migrate, "auto");
  EXPECT_FALSE(c->settings().production);
  env_ = {{"AWC_MIGRATE", "check"}, {"AWC_PRODUCTION", "1"}};
  c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().migrate, "check");
  EXPECT_TRUE(c->settings().production);
  env_ = {{"AWC_MIGRATE", "never"}};
  EXPECT_EQ(LoadError(), "AWC_MIGRATE: \"never\" is not auto or check");
  EXPECT_EQ(c->settings().DatabasePoolMode(), db::PoolMode::kSession);
  env_ = {{"AWC_DATABASE_POOL_MODE", "statement"}};
  EXPECT_EQ(LoadError(),
            "AWC_DATABASE_POOL_MODE: \"statement\" is not session or "
            "transaction");
  env_ = {{"AWC_PRODUCTION", "yes"}};
  EXPECT_NE(LoadError().find("AWC_PRODUCTION: \"yes\" is not a boolean"),
            std::string::npos);
  env_ = {};
  std::string ini = Write("p.ini",
                          "[database]\nmigrate = check\nproduction = "
                          "true\n");
  c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().migrate, "check");
  EXPECT_TRUE(c->settings().production);
}

TEST_F(ConfigTest, TheDefaultFileIsReadWhenItExistsAndNothingElseIsNamed) {
  std::string def = Write("default.conf", "[worker]\nid = from-default\n");
  Result<Config> c = Config::Load("", LookupIn(env_), def);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_id, "from-default");
  EXPECT_EQ(c->settings().config_file, def);
  EXPECT_EQ(Find(c->Describe(), "AWC_WORKER_ID").source, "file " + def);
  // Absent: defaults, no error.
  c = Config::Load("", LookupIn(env_), dir_ + "/absent.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().config_file, "");
  // -c and AWC_CONFIG win over it.
  std::string other = Write("other.conf", "[worker]\nid = from-other\n");
  c = Config::Load(other, LookupIn(env_), def);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().worker_id, "from-other");
  env_ = {{"AWC_CONFIG", other}};
  c = Config::Load("", LookupIn(env_), def);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().worker_id, "from-other");
  // Present but broken: an error naming it.
  std::string bad = Write("bad.conf", "[nope]\n");
  env_ = {};
  c = Config::Load("", LookupIn(env_), bad);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), bad + ":1: unknown section [nope]");
}

}  // namespace
}  // namespace awc::config
