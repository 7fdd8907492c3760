#include "config/config.h"

#include <ini.h>
#include <libpq-fe.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include "common/redact.h"

namespace awc::config {
namespace {

using Field = std::variant<std::string Settings::*, int64_t Settings::*,
                           bool Settings::*, obs::LogLevel Settings::*>;
using Check = Status (*)(const std::string&);

// One row per setting; the only list of them. `min`/`max` bound integers.
struct Spec {
  const char* env;
  const char* section;
  const char* key;
  Field field;
  int64_t min = 0;
  int64_t max = 0;
  bool secret = false;        // shown redacted by Describe()
  bool file_variant = false;  // <ENV>_FILE and <key>_file read a file
  Check check = nullptr;      // extra validation of string values
};

Status CheckDatabaseUrl(const std::string& v) {
  if (v.empty()) return Status::OK();
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(v.c_str(), &err);
  // libpq's message can quote the string, password included: not shown.
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) {
    return Status::InvalidArgument(
        "not a valid PostgreSQL connection string (URL or key=value)");
  }
  PQconninfoFree(opts);
  return Status::OK();
}

Status CheckWorkerId(const std::string& v) {
  if (v.empty() || v.size() > 48) {
    return Status::InvalidArgument("must be 1 to 48 characters");
  }
  for (char c : v) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) {
      return Status::InvalidArgument("\"" + v +
                                     "\" may use only letters, digits, "
                                     "'-', '_' and '.'");
    }
  }
  return Status::OK();
}

Status CheckListen(const std::string& v) {
  if (v.empty()) return Status::OK();
  return ParseListenAddress(v).status();
}

constexpr int64_t kDay = 86400;
constexpr int64_t kMax = INT64_MAX / 1000;

const Spec kSpecs[] = {
    {"DATABASE_URL", "database", "url", &Settings::database_url, 0, 0, true,
     false, CheckDatabaseUrl},
    {"AWC_CAS_URL", "cas", "url", &Settings::cas_url},
    {"AWC_WORKER_ID", "worker", "id", &Settings::worker_id, 0, 0, false, false,
     CheckWorkerId},
    {"AWC_WORKER_CONCURRENCY", "worker", "concurrency",
     &Settings::worker_concurrency, 1, 1024},
    {"AWC_WORKER_LEASE_SECS", "worker", "lease_secs",
     &Settings::worker_lease_secs, 1, 7 * kDay},
    {"AWC_WORKER_POLL_INTERVAL_MS", "worker", "poll_interval_ms",
     &Settings::worker_poll_interval_ms, 10, 3600 * 1000},
    {"AWC_RETENTION_GRACE_SECS", "retention", "grace_secs",
     &Settings::retention_grace_secs, 0, kMax},
    {"AWC_GC_GRACE_SECS", "gc", "grace_secs", &Settings::gc_grace_secs, 0,
     kMax},
    {"AWC_GC_BATCH_SIZE", "gc", "batch_size", &Settings::gc_batch_size, 1,
     10'000'000},
    {"AWC_GC_CANARY_SIZE", "gc", "canary_size", &Settings::gc_canary_size, 0,
     10'000'000},
    {"AWC_GC_DRY_RUN", "gc", "dry_run", &Settings::gc_dry_run},
    {"AWC_METRICS_LISTEN", "metrics", "listen", &Settings::metrics_listen, 0,
     0, false, false, CheckListen},
    {"AWC_LOG_LEVEL", "log", "level", &Settings::log_level},
    {"AWC_S3_ENDPOINT", "s3", "endpoint", &Settings::s3_endpoint},
    {"AWC_S3_REGION", "s3", "region", &Settings::s3_region},
    {"AWC_S3_ACCESS_KEY_ID", "s3", "access_key_id",
     &Settings::s3_access_key_id, 0, 0, false, true},
    {"AWC_S3_SECRET_ACCESS_KEY", "s3", "secret_access_key",
     &Settings::s3_secret_access_key, 0, 0, true, true},
    {"AWC_S3_FORCE_PATH_STYLE", "s3", "force_path_style",
     &Settings::s3_force_path_style},
    {"AWC_S3_MAX_CONCURRENCY", "s3", "max_concurrency",
     &Settings::s3_max_concurrency, 1, 256},
    {"AWC_S3_TIMEOUT_MS", "s3", "timeout_ms", &Settings::s3_timeout_ms, 100,
     3600 * 1000},
    {"AWC_MANIFEST_MAX_BYTES", "cas", "manifest_max_bytes",
     &Settings::manifest_max_bytes, 64, 1LL << 32},
    {"AWC_CLOSURE_MAX_DEPTH", "cas", "closure_max_depth",
     &Settings::closure_max_depth, 1, 4096},
    {"AWC_CLOSURE_MAX_OBJECTS", "cas", "closure_max_objects",
     &Settings::closure_max_objects, 1, 1'000'000'000},
};
constexpr size_t kSpecCount = sizeof kSpecs / sizeof kSpecs[0];

Result<int64_t> ParseInt(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty value");
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  bool digits = i < text.size();
  for (size_t j = i; j < text.size(); ++j) {
    if (text[j] < '0' || text[j] > '9') digits = false;
  }
  if (!digits) {
    return Status::InvalidArgument("\"" + text + "\" is not an integer");
  }
  errno = 0;
  long long v = strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE) {
    return Status::InvalidArgument("\"" + text + "\" is too large");
  }
  return static_cast<int64_t>(v);
}

Result<bool> ParseBool(const std::string& text) {
  if (text == "1" || text == "true" || text == "TRUE") return true;
  if (text == "0" || text == "false" || text == "FALSE" || text.empty()) {
    return false;
  }
  return Status::InvalidArgument("\"" + text +
                                 "\" is not a boolean (1, true, TRUE, 0, "
                                 "false, FALSE)");
}

// Applies one textual value to its setting; the error has no setting name
// (callers add it, with file and line where there is one).
Status Apply(const Spec& spec, const std::string& text, Settings* s) {
  if (auto* f = std::get_if<std::string Settings::*>(&spec.field)) {
    if (spec.check != nullptr) AWC_RETURN_IF_ERROR(spec.check(text));
    s->**f = text;
  } else if (auto* i = std::get_if<int64_t Settings::*>(&spec.field)) {
    AWC_ASSIGN_OR_RETURN(int64_t v, ParseInt(text));
    if (v < spec.min || v > spec.max) {
      return Status::InvalidArgument(text + " is out of range (" +
                                     std::to_string(spec.min) + ".." +
                                     std::to_string(spec.max) + ")");
    }
    s->**i = v;
  } else if (auto* b = std::get_if<bool Settings::*>(&spec.field)) {
    AWC_ASSIGN_OR_RETURN(bool v, ParseBool(text));
    s->**b = v;
  } else if (auto* l = std::get_if<obs::LogLevel Settings::*>(&spec.field)) {
    AWC_ASSIGN_OR_RETURN(obs::LogLevel v, obs::ParseLogLevel(text));
    s->**l = v;
  }
  return Status::OK();
}

std::string Show(const Spec& spec, const Settings& s) {
  if (auto* f = std::get_if<std::string Settings::*>(&spec.field)) {
    const std::string& v = s.**f;
    if (v.empty()) return "";
    if (std::string_view(spec.env) == "DATABASE_URL") return RedactConnInfo(v);
    return spec.secret ? std::string(kRedacted) : v;
  }
  if (auto* i = std::get_if<int64_t Settings::*>(&spec.field)) {
    return std::to_string(s.**i);
  }
  if (auto* b = std::get_if<bool Settings::*>(&spec.field)) {
    return s.**b ? "true" : "false";
  }
  return obs::LogLevelName(s.*std::get<obs::LogLevel Settings::*>(spec.field));
}

Result<std::string> ReadSecretFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read file \"" + path + "\"");
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string v = buf.str();
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  return v;
}

struct IniState {
  Settings* settings;
  std::vector<std::string>* sources;
  std::string path;
  std::string first_error;
  int line = 0;  // lines seen so far, for sources
};

int OnIniValue(void* user, const char* section, const char* name,
               const char* value) {
  auto* st = static_cast<IniState*>(user);
  std::string sec(section), key(name);
  for (size_t n = 0; n < kSpecCount; ++n) {
    const Spec& spec = kSpecs[n];
    if (sec != spec.section) continue;
    std::string text = value;
    if (spec.file_variant && key == std::string(spec.key) + "_file") {
      Result<std::string> r = ReadSecretFile(text);
      if (!r.ok()) {
        if (st->first_error.empty()) {
          st->first_error = "[" + sec + "] " + key + ": " + r.status().message();
        }
        return 0;
      }
      text = *r;
    } else if (key != spec.key) {
      continue;
    }
    Status s = Apply(spec, text, st->settings);
    if (!s.ok()) {
      if (st->first_error.empty()) {
        st->first_error = "[" + sec + "] " + key + " (" + spec.env +
                          "): " + s.message();
      }
      return 0;
    }
    (*st->sources)[n] = "file " + st->path;
    return 1;
  }
  bool known_section = false;
  for (const Spec& spec : kSpecs) known_section |= sec == spec.section;
  if (st->first_error.empty()) {
    st->first_error = known_section ? "unknown key \"" + key +
                                          "\" in section [" + sec + "]"
                                    : "unknown section [" + sec + "]";
  }
  return 0;
}

Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources) {
  IniState st{s, sources, path, {}, 0};
  int rc = ini_parse(path.c_str(), OnIniValue, &st);
  if (rc == -1) {
    return Status::InvalidArgument("cannot open configuration file \"" + path +
                                   "\"");
  }
  if (rc == -2) return Status::Internal("out of memory reading " + path);
  if (rc > 0) {
    std::string what =
        st.first_error.empty() ? "syntax error" : st.first_error;
    return Status::InvalidArgument(path + ":" + std::to_string(rc) + ": " +
                                   what);
  }
  return Status::OK();
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const char* name) -> const char* { return getenv(name); };
}

Result<Config> Config::Load(const std::string& config_path,
                            const EnvLookup& env) {
  Config cfg;
  cfg.sources_.assign(kSpecCount, "default");
  std::string path = config_path;
  if (path.empty() && env("AWC_CONFIG") != nullptr) path = env("AWC_CONFIG");
  if (!path.empty()) {
    AWC_RETURN_IF_ERROR(LoadIni(path, &cfg.settings_, &cfg.sources_));
    cfg.settings_.config_file = path;
  }
  for (size_t n = 0; n < kSpecCount; ++n) {
    const Spec& spec = kSpecs[n];
    const char* direct = env(spec.env);
    std::string file_var = std::string(spec.env) + "_FILE";
    const char* via_file = spec.file_variant ? env(file_var.c_str()) : nullptr;
    if (direct != nullptr && via_file != nullptr) {
      return Status::InvalidArgument(std::string(spec.env) + ": set " +
                                     spec.env + " or " + file_var +
                                     ", not both");
    }
    std::string text;
    if (via_file != nullptr) {
      Result<std::string> r = ReadSecretFile(via_file);
      if (!r.ok()) return r.status().WithContext(file_var);
      text = *r;
    } else if (direct != nullptr) {
      text = direct;
    } else {
      continue;
    }
    Status s = Apply(spec, text, &cfg.settings_);
    if (!s.ok()) return s.WithContext(spec.env);
    cfg.sources_[n] = "environment";
  }
  const Settings& s = cfg.settings_;
  if (s.gc_canary_size > s.gc_batch_size) {
    return Status::InvalidArgument(
        "AWC_GC_CANARY_SIZE: " + std::to_string(s.gc_canary_size) +
        " is larger than AWC_GC_BATCH_SIZE (" +
        std::to_string(s.gc_batch_size) + ")");
  }
  RegisterSecret(ConnInfoPassword(s.database_url));
  RegisterSecret(s.s3_secret_access_key);
  return cfg;
}

std::vector<std::string> Config::Describe() const {
  std::vector<std::string> lines;
  for (size_t n = 0; n < kSpecCount; ++n) {
    std::string line = std::string(kSpecs[n].env) + " = " +
                       Show(kSpecs[n], settings_);
    if (line.size() < 48) line.resize(48, ' ');
    lines.push_back(line + "  # " + sources_[n]);
  }
  return lines;
}

Status RequireDaemon(const Settings& settings) {
  if (settings.database_url.empty()) {
    return Status::InvalidArgument("DATABASE_URL is not set");
  }
  if (settings.cas_url.empty()) {
    return Status::InvalidArgument("AWC_CAS_URL is not set");
  }
  return Status::OK();
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress out;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return Status::InvalidArgument("\"" + text +
                                     "\" is not host:port or [v6]:port");
    }
    out.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("\"" + text + "\" is not host:port");
    }
    out.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  Result<int64_t> p = ParseInt(port);
  if (!p.ok() || *p < 1 || *p > 65535) {
    return Status::InvalidArgument("\"" + text +
                                   "\" has no valid port (1..65535)");
  }
  out.port = static_cast<int>(*p);
  return out;
}

}  // namespace awc::config
