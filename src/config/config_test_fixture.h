// The fixture shared by the config tests: an environment in a map, INI
// files in a temporary directory, secrets cleared around each test.
#ifndef AWC_CONFIG_CONFIG_TEST_FIXTURE_H_
#define AWC_CONFIG_CONFIG_TEST_FIXTURE_H_

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
#include "config/config.h"

namespace awc::config {

using Env = std::map<std::string, std::string>;

// Every setting's environment name, in the order Describe() lists them.
const char* const kAllNames[] = {
    "DATABASE_URL",
    "AWC_MIGRATE",
    "AWC_DATABASE_POOL_MODE",
    "AWC_PRODUCTION",
    "AWC_CAS_URL",
    "AWC_CAS_REPAIR_URL",
    "AWC_WORKER_ID",
    "AWC_WORKER_CONCURRENCY",
    "AWC_WORKER_BACKGROUND_CONCURRENCY",
    "AWC_WORKER_LEASE_SECS",
    "AWC_WORKER_POLL_INTERVAL_MS",
    "AWC_WORKER_GIVE_UP_SECS",
    "AWC_WORKER_HEARTBEAT_SECS",
    "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS",
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
    "AWC_S3_REPAIR_ENDPOINT",
    "AWC_S3_REPAIR_REGION",
    "AWC_S3_REPAIR_ACCESS_KEY_ID",
    "AWC_S3_REPAIR_SECRET_ACCESS_KEY",
    "AWC_S3_MAX_CONCURRENCY",
    "AWC_S3_TIMEOUT_MS",
    "AWC_MANIFEST_MAX_BYTES",
    "AWC_CLOSURE_MAX_DEPTH",
    "AWC_CLOSURE_MAX_OBJECTS",
    "AWC_SCHEDULER",
    "AWC_SCHEDULER_LEASE_SECS",
    "AWC_SCRUB_INTERVAL_SECS",
    "AWC_SCRUB_MAX_PER_RUN",
    "AWC_SCRUB_BUDGET_MB_PER_SEC",
    "AWC_SCRUB_BUDGET_OBJECTS_PER_SEC",
    "AWC_JOB_RETENTION_SECS",
    "AWC_DEAD_LETTER_RETENTION_SECS",
    "AWC_AUDIT_RETENTION_SECS",
};

// An EnvLookup over a map that outlives it; never the process environment.
inline EnvLookup LookupIn(const Env& env) {
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

inline Line Find(const std::vector<std::string>& lines,
                 const std::string& name) {
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

inline std::string Joined(const std::vector<std::string>& lines) {
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

}  // namespace awc::config

#endif  // AWC_CONFIG_CONFIG_TEST_FIXTURE_H_
