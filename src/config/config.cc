#include "config/config.h"

#include <cstdlib>

#include "common/env.h"
#include "common/host_name.h"
#include "common/redact.h"
#include "config/ini_file.h"
#include "config/setting_spec.h"
#include "store/store_url.h"

namespace awc::config {

EnvLookup ProcessEnv() {
  return [](const char* name) -> const char* { return getenv(name); };
}

namespace {

// The checks across settings, each value alone valid.
std::vector<Status> CheckAcross(const Settings& s) {
  std::vector<Status> errors;
  if (s.gc_canary_size > s.gc_batch_size) {
    errors.push_back(Status::InvalidArgument(
        "AWC_GC_CANARY_SIZE: " + std::to_string(s.gc_canary_size) +
        " is larger than AWC_GC_BATCH_SIZE (" +
        std::to_string(s.gc_batch_size) + ")"));
  }
  // A live worker writes its heartbeat every AWC_WORKER_HEARTBEAT_SECS;
  // a timeout shorter than three of them would take jobs from workers
  // whose write was merely late (docs/queue.md, "Silent holders").
  if (s.worker_heartbeat_timeout_secs != 0 &&
      s.worker_heartbeat_timeout_secs < 3 * s.worker_heartbeat_secs) {
    errors.push_back(Status::InvalidArgument(
        "AWC_WORKER_HEARTBEAT_TIMEOUT_SECS: " +
        std::to_string(s.worker_heartbeat_timeout_secs) +
        " is less than three heartbeats (3 x AWC_WORKER_HEARTBEAT_SECS = " +
        std::to_string(3 * s.worker_heartbeat_secs) + "); 0 turns it off"));
  }
  // The S3 credentials go together, and matter only for the S3 store.
  Result<store::StoreUrl> url = store::ParseStoreUrl(s.cas_url);
  bool s3_store = url.ok() && url->scheme == store::StoreUrl::Scheme::kS3;
  if (s3_store &&
      s.s3_access_key_id.empty() != s.s3_secret_access_key.empty()) {
    errors.push_back(Status::InvalidArgument(
        "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY must be set "
        "together"));
  }
  // The repair store's credentials go together too; without any, it uses
  // the main store's.
  if (s.s3_repair_access_key_id.empty() !=
      s.s3_repair_secret_access_key.empty()) {
    errors.push_back(Status::InvalidArgument(
        "AWC_S3_REPAIR_ACCESS_KEY_ID and AWC_S3_REPAIR_SECRET_ACCESS_KEY must "
        "be set together"));
  }
  // The same place however it is spelled (a trailing '/', a doubled one):
  // the locations as the stores open them, not the texts.
  Result<store::StoreUrl> repair = store::ParseStoreUrl(s.cas_repair_url);
  if (url.ok() && repair.ok() && *url == *repair) {
    errors.push_back(Status::InvalidArgument(
        "AWC_CAS_REPAIR_URL: the store itself cannot be its repair store"));
  }
  return errors;
}

}  // namespace

std::string DefaultWorkerId(std::string_view host) {
  std::string part;
  for (char c : host.substr(0, host.find('.')).substr(0, kDefaultIdHostBytes)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_';
    part += ok ? c : '-';
  }
  return "awc-worker." + (part.empty() ? std::string("unknown") : part);
}

Result<Config> Config::Load(const std::string& config_path,
                            const EnvLookup& env,
                            const std::string& default_path) {
  Loaded loaded = LoadAll(config_path, env, default_path);
  if (!loaded.errors.empty()) return loaded.errors.front();
  return std::move(loaded.config);
}

Config::Loaded Config::LoadAll(const std::string& config_path,
                               const EnvLookup& env,
                               const std::string& default_path) {
  Loaded out;
  Config& cfg = out.config;
  std::vector<Status>& errors = out.errors;
  cfg.sources_.assign(Specs().size(), "default");
  std::string path = config_path;
  if (path.empty() && env("AWC_CONFIG") != nullptr) {
    path = env("AWC_CONFIG");
    if (path.empty()) errors.push_back(EmptyValue().WithContext("AWC_CONFIG"));
  }
  if (path.empty() && !default_path.empty() &&
      !Env::Default()
           ->Stat(default_path, Env::Symlinks::kFollow)
           .status()
           .IsNotFound()) {
    path = default_path;
  }
  if (!path.empty()) {
    // The file's first error stops its reading: what follows a line in
    // error may be read under the wrong section.
    Status s = LoadIni(path, &cfg.settings_, &cfg.sources_);
    if (!s.ok()) errors.push_back(s);
    cfg.settings_.config_file = path;
  }
  for (size_t n = 0; n < Specs().size(); ++n) {
    const Spec& spec = Specs()[n];
    const char* direct = env(spec.env);
    std::string file_var = std::string(spec.env) + "_FILE";
    const char* via_file = spec.file_variant ? env(file_var.c_str()) : nullptr;
    if (direct != nullptr && via_file != nullptr) {
      errors.push_back(Status::InvalidArgument(std::string(spec.env) +
                                               ": set " + spec.env + " or " +
                                               file_var + ", not both"));
      continue;
    }
    std::string text;
    if (via_file != nullptr) {
      Result<std::string> r = ReadSecretFile(via_file);
      if (!r.ok()) {
        errors.push_back(r.status().WithContext(file_var));
        continue;
      }
      text = *r;
    } else if (direct != nullptr) {
      text = direct;
    } else {
      continue;
    }
    Status s = Apply(spec, text, &cfg.settings_);
    if (!s.ok()) {
      errors.push_back(s.WithContext(spec.env));
      continue;
    }
    cfg.sources_[n] = "environment";
  }
  // A default that depends on the host (docs/configuration.md).
  if (cfg.settings_.worker_id.empty()) {
    cfg.settings_.worker_id = DefaultWorkerId(HostName());
  }
  const Settings& s = cfg.settings_;
  RegisterSecret(ConnInfoPassword(s.database_url));
  if (const char* pg_password = env("PGPASSWORD")) RegisterSecret(pg_password);
  RegisterSecret(s.s3_secret_access_key);
  RegisterSecret(s.s3_repair_secret_access_key);
  // Checks across settings, when each value alone passed the table: one
  // that did not would be judged by a value nobody set.
  if (errors.empty()) errors = CheckAcross(s);
  return out;
}

std::vector<std::string> Config::Describe() const {
  std::vector<std::string> lines;
  for (size_t n = 0; n < Specs().size(); ++n) {
    // Escaped, so that each setting is one line (awc-worker(8), -t).
    std::string line = std::string(Specs()[n].env) + " = " +
                       EscapeControlBytes(Show(Specs()[n], settings_));
    if (line.size() < 48) line.resize(48, ' ');
    lines.push_back(line + "  # " + EscapeControlBytes(sources_[n]));
  }
  return lines;
}

std::vector<Status> RequireDaemon(const Settings& settings) {
  std::vector<Status> errors;
  if (settings.database_url.empty()) {
    errors.push_back(Status::InvalidArgument("DATABASE_URL is not set"));
  }
  if (settings.cas_url.empty()) {
    errors.push_back(Status::InvalidArgument("AWC_CAS_URL is not set"));
  }
  return errors;
}

}  // namespace awc::config
