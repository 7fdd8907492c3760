// Loading, validating and describing the configuration (see settings.h).
//
// Contract:
//  - Every check of a setting is made here, so `awc-worker -t` refuses
//    exactly what startup refuses: each value against its row of the
//    settings table (setting_spec.cc: syntax, range, the store URL and S3
//    endpoint and region syntax of the store), then the checks across
//    settings (canary <= batch; with an s3:// store, the S3 key id and
//    secret key set together). The modules get option structs built from
//    checked Settings (options/module_options.h) and do not check again.
//  - A value that does not parse or is out of range is an error naming the
//    setting: `AWC_WORKER_CONCURRENCY: "four" is not an integer`.
//  - An INI error names file and line: `/etc/awc.conf:7: unknown key ...`.
//  - Secrets (the DATABASE_URL password, the S3 secret key) are registered
//    with redact.h while loading, so no later output can leak them, and
//    Describe() shows them redacted.
//  - Load() does not require DATABASE_URL or AWC_CAS_URL: awcctl needs only
//    some settings. RequireDaemon() checks what the daemon's startup needs.
//  - LoadAll() reads on past an error and returns every error it finds
//    (awc-worker -t and startup print them all): the INI file's first (a
//    line in error may put the rest of the file under the wrong section),
//    each environment variable's, then, only when every value was read,
//    each check across settings. Load() returns the first of them.
#ifndef AWC_CONFIG_CONFIG_H_
#define AWC_CONFIG_CONFIG_H_

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/settings.h"

namespace awc::config {

// Returns the value of an environment variable, or nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// The process environment (getenv).
EnvLookup ProcessEnv();

// The INI file both programs read when none is named and it exists:
// <sysconfdir>/awc-worker/awc-worker.conf of the build (the install's
// sysconfdir, /etc by default).
inline constexpr const char* kDefaultConfigFile = AWC_DEFAULT_CONFIG_FILE;

class Config {
 public:
  // Loads defaults, then the INI file (`config_path` if not empty, else
  // AWC_CONFIG if set, else `default_path` if not empty and it exists),
  // then the environment. PGPASSWORD, which libpq reads, is registered as a
  // secret too.
  static Result<Config> Load(const std::string& config_path,
                             const EnvLookup& env,
                             const std::string& default_path = "");

  // Load()'s reading, past its errors (see the contract). `config` holds
  // what was read; it is the configuration only when `errors` is empty.
  struct Loaded;
  static Loaded LoadAll(const std::string& config_path, const EnvLookup& env,
                        const std::string& default_path = "");

  const Settings& settings() const { return settings_; }
  Settings& mutable_settings() { return settings_; }

  // One line per setting, "NAME = value    # source", secrets redacted
  // and control bytes written \xHH; the output of `awc-worker -t`.
  std::vector<std::string> Describe() const;

 private:
  Settings settings_;
  std::vector<std::string> sources_;  // parallel to the spec table
};

struct Config::Loaded {
  Config config;
  std::vector<Status> errors;
};

// DATABASE_URL and AWC_CAS_URL must be set (startup step 1): an error for
// each one that is not.
std::vector<Status> RequireDaemon(const Settings& settings);

}  // namespace awc::config

#endif  // AWC_CONFIG_CONFIG_H_
