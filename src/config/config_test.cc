#include "config/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/redact.h"

namespace awc::config {
namespace {

using Env = std::map<std::string, std::string>;

// Every setting's environment name, in the order Describe() lists them.
const char* const kAllNames[] = {
    "DATABASE_URL",
    "AWC_CAS_URL",
    "AWC_WORKER_ID",
    "AWC_WORKER_CONCURRENCY",
    "AWC_WORKER_LEASE_SECS",
    "AWC_WORKER_POLL_INTERVAL_MS",
    "AWC_RETENTION_GRACE_SECS",
    "AWC_GC_GRACE_SECS",
    "AWC_GC_BATCH_SIZE",
    "AWC_GC_CANARY_SIZE",
    "AWC_GC_DRY_RUN",
    "AWC_METRICS_LISTEN",
    "AWC_LOG_LEVEL",
    "AWC_S3_ENDPOINT",
    "AWC_S3_REGION",
    "AWC_S3_ACCESS_KEY_ID",
    "AWC_S3_SECRET_ACCESS_KEY",
    "AWC_S3_FORCE_PATH_STYLE",
    "AWC_S3_MAX_CONCURRENCY",
    "AWC_S3_TIMEOUT_MS",
    "AWC_MANIFEST_MAX_BYTES",
    "AWC_CLOSURE_MAX_DEPTH",
    "AWC_CLOSURE_MAX_OBJECTS",
};

// An EnvLookup over a map that outlives it; never the process environment.
EnvLookup LookupIn(const Env& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

// One Describe() line split into its parts.
struct Line {
  bool found = false;
  std::string value;
  std::string source;
};

Line Find(const std::vector<std::string>& lines, const std::string& name) {
  Line out;
  for (const std::string& l : lines) {
    if (l.rfind(name + " = ", 0) != 0) continue;
    size_t hash = l.rfind("  # ");
    if (hash == std::string::npos) return out;
    std::string value = l.substr(name.size() + 3, hash - name.size() - 3);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    out.found = true;
    out.value = value;
    out.source = l.substr(hash + 4);
    return out;
  }
  return out;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearSecrets();
    char tmpl[] = "/tmp/awc_config_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }

  void TearDown() override {
    ClearSecrets();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Writes `text` to a file of the test directory and returns its path.
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path;
  }

  Result<Config> Load(const std::string& path = "") {
    return Config::Load(path, LookupIn(env_));
  }

  // Loads with `env_` and returns the error message ("" if it loaded).
  std::string LoadError(const std::string& path = "") {
    Result<Config> c = Load(path);
    if (c.ok()) return "";
    EXPECT_TRUE(c.status().IsInvalidArgument()) << c.status().ToString();
    return c.status().message();
  }

  std::string dir_;
  Env env_;
};

// --- defaults -------------------------------------------------------------

TEST_F(ConfigTest, DefaultsMatchTheReferenceAndTheDesign) {
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  // The reference's table.
  EXPECT_EQ(s.database_url, "");
  EXPECT_EQ(s.cas_url, "");
  EXPECT_EQ(s.worker_id, "awc-worker");
  EXPECT_EQ(s.worker_concurrency, 4);
  EXPECT_EQ(s.worker_lease_secs, 300);
  EXPECT_EQ(s.worker_poll_interval_ms, 1000);
  EXPECT_EQ(s.retention_grace_secs, 86400);
  EXPECT_EQ(s.gc_grace_secs, 86400);
  EXPECT_EQ(s.gc_batch_size, 1000);
  EXPECT_EQ(s.gc_canary_size, 10);
  EXPECT_FALSE(s.gc_dry_run);
  // DESIGN section 3 additions.
  EXPECT_EQ(s.metrics_listen, "");
  EXPECT_EQ(s.log_level, obs::LogLevel::kInfo);
  EXPECT_EQ(s.EffectiveS3Endpoint(), "https://s3.us-east-1.amazonaws.com");
  EXPECT_EQ(s.s3_region, "us-east-1");
  EXPECT_EQ(s.s3_access_key_id, "");
  EXPECT_EQ(s.s3_secret_access_key, "");
  EXPECT_FALSE(s.s3_force_path_style);
  EXPECT_EQ(s.s3_max_concurrency, 16);
  // DESIGN section 5 limits.
  EXPECT_EQ(s.manifest_max_bytes, 16 * 1024 * 1024);
  EXPECT_EQ(s.closure_max_depth, 64);
  EXPECT_EQ(s.closure_max_objects, 10'000'000);
  EXPECT_EQ(s.s3_timeout_ms, 30000);
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
  EXPECT_EQ(Find(lines, "AWC_WORKER_ID").value, "awc-worker");
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
  // -t shows the endpoint that will actually be used.
  EXPECT_EQ(Find(lines, "AWC_S3_ENDPOINT").value,
            "https://s3.us-east-1.amazonaws.com");
}

// --- environment and INI layers ---------------------------------------------

TEST_F(ConfigTest, EnvironmentSetsEverySetting) {
  std::string key_file = Write("key_id", "AKIDFROMFILE\n");
  env_ = {
      {"DATABASE_URL", "postgresql://u@db.example:5432/awc"},
      {"AWC_CAS_URL", "file:///srv/cas"},
      {"AWC_WORKER_ID", "host-a"},
      {"AWC_WORKER_CONCURRENCY", "8"},
      {"AWC_WORKER_LEASE_SECS", "60"},
      {"AWC_WORKER_POLL_INTERVAL_MS", "250"},
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
      {"AWC_S3_MAX_CONCURRENCY", "32"},
      {"AWC_S3_TIMEOUT_MS", "5000"},
      {"AWC_MANIFEST_MAX_BYTES", "1048576"},
      {"AWC_CLOSURE_MAX_DEPTH", "16"},
      {"AWC_CLOSURE_MAX_OBJECTS", "1000"},
  };
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  EXPECT_EQ(s.database_url, "postgresql://u@db.example:5432/awc");
  EXPECT_EQ(s.cas_url, "file:///srv/cas");
  EXPECT_EQ(s.worker_id, "host-a");
  EXPECT_EQ(s.worker_concurrency, 8);
  EXPECT_EQ(s.worker_lease_secs, 60);
  EXPECT_EQ(s.worker_poll_interval_ms, 250);
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

  std::vector<std::string> lines = c->Describe();
  for (const char* name : kAllNames) {
    Line l = Find(lines, name);
    ASSERT_TRUE(l.found) << name;
    EXPECT_EQ(l.source, "environment") << name;
  }
  EXPECT_EQ(Find(lines, "AWC_WORKER_CONCURRENCY").value, "8");
  EXPECT_EQ(Find(lines, "AWC_GC_DRY_RUN").value, "true");
  EXPECT_EQ(Find(lines, "AWC_LOG_LEVEL").value, "debug");
  EXPECT_EQ(Find(lines, "AWC_S3_ACCESS_KEY_ID").value, "AKIDFROMFILE");
  EXPECT_EQ(Find(lines, "AWC_S3_SECRET_ACCESS_KEY").value, "********");
  EXPECT_EQ(Find(lines, "AWC_S3_ENDPOINT").value, "http://127.0.0.1:4568");
}

TEST_F(ConfigTest, IniFileSetsEverySetting) {
  std::string secret = Write("secret", "SECRETFROMFILE\r\n");
  std::string ini = Write("awc.conf",
                          "; awc-worker configuration\n"
                          "[database]\n"
                          "url = postgresql://u@db.example/awc\n"
                          "[cas]\n"
                          "url = memory://\n"
                          "manifest_max_bytes = 4096\n"
                          "closure_max_depth = 8\n"
                          "closure_max_objects = 99\n"
                          "[worker]\n"
                          "id = host-b\n"
                          "concurrency = 2\n"
                          "lease_secs = 30\n"
                          "poll_interval_ms = 100\n"
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
                              "max_concurrency = 4\n"
                              "timeout_ms = 1000\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const Settings& s = c->settings();
  EXPECT_EQ(s.config_file, ini);
  EXPECT_EQ(s.database_url, "postgresql://u@db.example/awc");
  EXPECT_EQ(s.cas_url, "memory://");
  EXPECT_EQ(s.manifest_max_bytes, 4096);
  EXPECT_EQ(s.closure_max_depth, 8);
  EXPECT_EQ(s.closure_max_objects, 99);
  EXPECT_EQ(s.worker_id, "host-b");
  EXPECT_EQ(s.worker_concurrency, 2);
  EXPECT_EQ(s.worker_lease_secs, 30);
  EXPECT_EQ(s.worker_poll_interval_ms, 100);
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

TEST_F(ConfigTest, NonIntegerNamesTheSetting) {
  env_["AWC_WORKER_CONCURRENCY"] = "four";
  EXPECT_EQ(LoadError(), "AWC_WORKER_CONCURRENCY: \"four\" is not an integer");
}

TEST_F(ConfigTest, EveryIntegerSettingRejectsGarbage) {
  const char* const ints[] = {
      "AWC_WORKER_CONCURRENCY",      "AWC_WORKER_LEASE_SECS",
      "AWC_WORKER_POLL_INTERVAL_MS", "AWC_RETENTION_GRACE_SECS",
      "AWC_GC_GRACE_SECS",           "AWC_GC_BATCH_SIZE",
      "AWC_GC_CANARY_SIZE",          "AWC_S3_MAX_CONCURRENCY",
      "AWC_S3_TIMEOUT_MS",           "AWC_MANIFEST_MAX_BYTES",
      "AWC_CLOSURE_MAX_DEPTH",       "AWC_CLOSURE_MAX_OBJECTS"};
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

TEST_F(ConfigTest, DryRunAcceptsExactlyTheReferenceSpellings) {
  for (const char* t : {"1", "true", "TRUE"}) {
    env_ = {{"AWC_GC_DRY_RUN", t}};
    Result<Config> c = Load();
    ASSERT_TRUE(c.ok()) << t << ": " << c.status().ToString();
    EXPECT_TRUE(c->settings().gc_dry_run) << t;
  }
  for (const char* f : {"0", "false", "FALSE", ""}) {
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
  for (const char* bad : {"verbose", "", "trace", "fatal"}) {
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

// --- _FILE variants
// ------------------------------------------------------------

TEST_F(ConfigTest, FileVariantsStripTheTrailingNewline) {
  env_ = {{"AWC_S3_ACCESS_KEY_ID_FILE", Write("id", "AKID123\n")},
          {"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk", "sk/with+chars==\n")}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_access_key_id, "AKID123");
  EXPECT_EQ(c->settings().s3_secret_access_key, "sk/with+chars==");
  // Leading whitespace and inner content are kept as written.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk2", " a b\n\n")}};
  c = Load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().s3_secret_access_key, " a b");
  // No newline at all.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk3", "plainkey")}};
  c = Load();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->settings().s3_secret_access_key, "plainkey");
}

TEST_F(ConfigTest, FileVariantOfTheSecretIsRegisteredForScrubbing) {
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", Write("sk", "topsecretkey\n")}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("sig topsecretkey"), "sig ********");
}

TEST_F(ConfigTest, BothValueAndFileIsAnError) {
  std::string f = Write("id", "AKID\n");
  env_ = {{"AWC_S3_ACCESS_KEY_ID", "AKID"}, {"AWC_S3_ACCESS_KEY_ID_FILE", f}};
  EXPECT_EQ(LoadError(),
            "AWC_S3_ACCESS_KEY_ID: set AWC_S3_ACCESS_KEY_ID or "
            "AWC_S3_ACCESS_KEY_ID_FILE, not both");
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY", "x1234"},
          {"AWC_S3_SECRET_ACCESS_KEY_FILE", f}};
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_SECRET_ACCESS_KEY: ", 0), 0u) << err;
  EXPECT_EQ(err.find("x1234"), std::string::npos) << err;
}

TEST_F(ConfigTest, UnreadableFileVariantIsAnError) {
  std::string missing = dir_ + "/no-such-secret";
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY_FILE", missing}};
  std::string err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_SECRET_ACCESS_KEY_FILE: ", 0), 0u) << err;
  EXPECT_NE(err.find(missing), std::string::npos) << err;
  // A directory cannot be read as a secret either.
  env_ = {{"AWC_S3_ACCESS_KEY_ID_FILE", dir_}};
  err = LoadError();
  EXPECT_EQ(err.rfind("AWC_S3_ACCESS_KEY_ID_FILE: ", 0), 0u) << err;
}

TEST_F(ConfigTest, FileVariantOnlyExistsForTheS3Credentials) {
  // DATABASE_URL_FILE is not a setting: ignored, not read.
  env_ = {{"DATABASE_URL_FILE", dir_ + "/missing"},
          {"AWC_WORKER_ID_FILE", dir_ + "/missing"}};
  Result<Config> c = Load();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().database_url, "");
  EXPECT_EQ(c->settings().worker_id, "awc-worker");
}

TEST_F(ConfigTest, IniFileVariants) {
  std::string id = Write("id", "AKIDVIAINI\n");
  std::string sk = Write("sk", "secretviaini\n");
  std::string ini =
      Write("s3.ini", "[s3]\naccess_key_id_file = " + id +
                          "\nsecret_access_key_file = " + sk + "\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_access_key_id, "AKIDVIAINI");
  EXPECT_EQ(c->settings().s3_secret_access_key, "secretviaini");
  // The environment still wins over the file's _file key.
  env_ = {{"AWC_S3_SECRET_ACCESS_KEY", "envsecret"}};
  c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().s3_secret_access_key, "envsecret");
}

TEST_F(ConfigTest, IniUnreadableFileVariantNamesFileAndLine) {
  std::string missing = dir_ + "/gone";
  std::string ini = Write(
      "s3.ini", "[s3]\nregion = x\nsecret_access_key_file = " + missing + "\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":3: ", 0), 0u) << err;
  EXPECT_NE(err.find("secret_access_key_file"), std::string::npos) << err;
  EXPECT_NE(err.find(missing), std::string::npos) << err;
}

TEST_F(ConfigTest, IniValueAndFileVariantTogetherIsAnError) {
  std::string sk = Write("sk", "secretviaini\n");
  std::string ini = Write("s3.ini",
                          "[s3]\nsecret_access_key = inlinesecret\n"
                          "secret_access_key_file = " +
                              sk + "\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":3: ", 0), 0u) << err;
  EXPECT_NE(err.find("not both"), std::string::npos) << err;
  EXPECT_EQ(err.find("inlinesecret"), std::string::npos) << err;
}

// --- INI errors name file and line
// ---------------------------------------------

TEST_F(ConfigTest, IniUnknownKeyNamesFileAndLine) {
  std::string ini = Write("x.ini", "[worker]\nconcurrency = 2\nthreads = 4\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":3: unknown key \"threads\" in section [worker]");
}

TEST_F(ConfigTest, IniUnknownSectionNamesFileAndLine) {
  // The header's line, not the line of its first key.
  std::string ini = Write("x.ini", "\n[workers]\nconcurrency = 2\n");
  EXPECT_EQ(LoadError(ini), ini + ":2: unknown section [workers]");
}

TEST_F(ConfigTest, IniUnknownSectionWithoutKeysIsAnError) {
  std::string ini =
      Write("x.ini", "[worker]\nconcurrency = 2\n\n[Worker]\n; empty\n");
  EXPECT_EQ(LoadError(ini), ini + ":4: unknown section [Worker]");
}

TEST_F(ConfigTest, IniCrlfLineEndingsAndBom) {
  std::string ini = Write("x.ini",
                          "\xEF\xBB\xBF[worker]\r\nconcurrency = 7\r\n"
                          "id = host-c ; inline comment\r\n[gc]\r\n"
                          "dry_run = 1\r\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().worker_concurrency, 7);
  EXPECT_EQ(c->settings().worker_id, "host-c");
  EXPECT_TRUE(c->settings().gc_dry_run);
}

TEST_F(ConfigTest, IniKeyOutsideASectionIsAnError) {
  std::string ini = Write("x.ini", "concurrency = 2\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":1: ", 0), 0u) << err;
  EXPECT_NE(err.find("concurrency"), std::string::npos) << err;
}

TEST_F(ConfigTest, IniKeyOfAnotherSectionIsUnknown) {
  // batch_size belongs to [gc], not [worker].
  std::string ini = Write("x.ini", "[worker]\nbatch_size = 2\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":2: unknown key \"batch_size\" in section [worker]");
}

TEST_F(ConfigTest, IniSyntaxErrorNamesFileAndLine) {
  std::string ini = Write("x.ini", "[worker]\nconcurrency = 2\njust words\n");
  EXPECT_EQ(LoadError(ini), ini + ":3: syntax error");
  ini = Write("y.ini", "[worker\nconcurrency = 2\n");
  EXPECT_EQ(LoadError(ini), ini + ":1: syntax error");
}

TEST_F(ConfigTest, IniReportsTheFirstErrorWithItsOwnLine) {
  // A syntax error on line 2 comes before the unknown key on line 4: the
  // message must describe line 2, not pair line 2 with line 4's problem.
  std::string ini = Write(
      "x.ini", "[worker]\nno equals sign here\nconcurrency = 2\nbogus = 1\n");
  EXPECT_EQ(LoadError(ini), ini + ":2: syntax error");
  // And the other way round.
  ini = Write("y.ini", "[worker]\nbogus = 1\nno equals sign here\n");
  EXPECT_EQ(LoadError(ini),
            ini + ":2: unknown key \"bogus\" in section [worker]");
}

TEST_F(ConfigTest, IniBadValueNamesFileLineKeyAndVariable) {
  std::string ini =
      Write("x.ini", "[worker]\nid = host-a\nconcurrency = four\n");
  EXPECT_EQ(LoadError(ini),
            ini +
                ":3: [worker] concurrency (AWC_WORKER_CONCURRENCY): \"four\" "
                "is not an integer");
  ini = Write("y.ini", "[gc]\n\n\n\ndry_run = maybe\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":5: [gc] dry_run (AWC_GC_DRY_RUN): ", 0), 0u)
      << err;
  ini = Write("z.ini", "[worker]\nlease_secs = -5\n");
  err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":2: [worker] lease_secs (AWC_WORKER_LEASE_SECS): "
                            "-5 is out of range",
                      0),
            0u)
      << err;
}

TEST_F(ConfigTest, IniInvalidDatabaseUrlDoesNotEchoIt) {
  std::string ini =
      Write("x.ini", "[database]\nurl = host=h password=s3cretpw nope=1\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":2: [database] url (DATABASE_URL): ", 0), 0u)
      << err;
  EXPECT_EQ(err.find("s3cretpw"), std::string::npos) << err;
}

TEST_F(ConfigTest, IniErrorAfterEnvironmentIsStillAnError) {
  // The environment cannot paper over a broken file.
  std::string ini = Write("x.ini", "[worker]\nconcurrency = zero\n");
  env_ = {{"AWC_WORKER_CONCURRENCY", "2"}};
  EXPECT_NE(LoadError(ini).find(ini + ":2:"), std::string::npos);
}

TEST_F(ConfigTest, IniLongestLineThatFitsIsAccepted) {
  // inih's buffer holds 199 bytes of a line.
  std::string prefix = "url = postgresql://u@h/";
  std::string line = prefix + std::string(199 - prefix.size(), 'd');
  ASSERT_EQ(line.size(), 199u);
  std::string ini = Write("x.ini", "[database]\n" + line +
                                       "\n[worker]\n"
                                       "concurrency = 3\n");
  Result<Config> c = Load(ini);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings().database_url, line.substr(6));
  EXPECT_EQ(c->settings().worker_concurrency, 3);
  ini = Write("y.ini", "[database]\n" + line + "d\n");
  EXPECT_EQ(LoadError(ini), ini + ":2: line too long (more than 199 bytes)");
}

TEST_F(ConfigTest, IniOverlongLineIsReportedNotTruncated) {
  // inih reads at most 199 bytes a line; a longer value must not be
  // silently cut or split into a confusing second line.
  std::string url = "postgresql://user@" + std::string(220, 'h') + "/db";
  std::string ini = Write("x.ini", "[database]\nurl = " + url + "\n");
  std::string err = LoadError(ini);
  EXPECT_EQ(err.rfind(ini + ":2: ", 0), 0u) << err;
  EXPECT_NE(err.find("too long"), std::string::npos) << err;
}

// --- secrets
// ----------------------------------------------------------------------

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

TEST_F(ConfigTest, NoPasswordRegistersNothing) {
  env_ = {{"DATABASE_URL", "postgresql://u@h/db"}};
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Scrub("postgresql://u@h/db"), "postgresql://u@h/db");
}

// --- RequireDaemon and ParseListenAddress
// -------------------------------------------

TEST(RequireDaemonTest, NeedsDatabaseUrlAndCasUrl) {
  Settings s;
  Status st = RequireDaemon(s);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message(), "DATABASE_URL is not set");
  s.database_url = "postgresql://h/db";
  st = RequireDaemon(s);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message(), "AWC_CAS_URL is not set");
  s.cas_url = "memory://";
  EXPECT_TRUE(RequireDaemon(s).ok());
  s.database_url.clear();
  EXPECT_EQ(RequireDaemon(s).message(), "DATABASE_URL is not set");
}

TEST(ParseListenAddressTest, HostPort) {
  Result<ListenAddress> a = ParseListenAddress("127.0.0.1:9187");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9187);
  a = ParseListenAddress("metrics.example:1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "metrics.example");
  EXPECT_EQ(a->port, 1);
  a = ParseListenAddress("localhost:65535");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port, 65535);
}

TEST(ParseListenAddressTest, BracketedV6) {
  Result<ListenAddress> a = ParseListenAddress("[::1]:9100");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 9100);
  a = ParseListenAddress("[fe80::1:2]:80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "fe80::1:2");
  EXPECT_EQ(a->port, 80);
}

TEST(ParseListenAddressTest, PortOnlyMeansAllInterfaces) {
  Result<ListenAddress> a = ParseListenAddress(":9187");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "");
  EXPECT_EQ(a->port, 9187);
}

TEST(ParseListenAddressTest, Rejects) {
  for (const char* bad :
       {"", "9187", "localhost", "host:", "host:0", "host:65536", "host:-1",
        "host:+80", "host:80x", "host: 80", "[::1]", "[::1]:", "[::1]80",
        "[::1", "[]:80", "::1", "::1:80", "fe80::1:80",
        "host:99999999999999"}) {
    Result<ListenAddress> a = ParseListenAddress(bad);
    EXPECT_FALSE(a.ok()) << "\"" << bad << "\" -> "
                         << (a.ok() ? a->host + " " + std::to_string(a->port)
                                    : "");
    if (!a.ok()) {
      EXPECT_TRUE(a.status().IsInvalidArgument()) << bad;
    }
  }
}

}  // namespace
}  // namespace awc::config
