#include "config/config.h"

#include <ini.h>
#include <libpq-fe.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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
  if (std::string_view(spec.env) == "AWC_S3_ENDPOINT") {
    // Unset means the region's AWS endpoint: show the one that is used.
    return s.EffectiveS3Endpoint();
  }
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

struct FileCloser {
  void operator()(FILE* f) const { fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

// Reads a whole file (a _FILE secret); trailing newlines are dropped. A path
// that cannot be read, a directory included, is an error.
Result<std::string> ReadSecretFile(const std::string& path) {
  FilePtr f(fopen(path.c_str(), "rb"));
  std::string v;
  if (f != nullptr) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f.get())) > 0) v.append(buf, n);
  }
  if (f == nullptr || ferror(f.get())) {
    int err = errno;
    return Status::InvalidArgument("cannot read file \"" + path +
                                   "\": " + strerror(err));
  }
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  return v;
}

// Feeds inih one physical line per call, so the handler knows the line it
// is called for; notes lines longer than inih's buffer (inih would split
// them, or truncate them silently) and read errors (a directory).
struct IniReader {
  FILE* file = nullptr;
  int line = 0;           // lines handed to inih so far
  int overlong_line = 0;  // the first line that did not fit, or 0
  int max_bytes = 0;      // what fits in inih's buffer
  bool read_error = false;
  int read_errno = 0;
  int bad_section_line = 0;  // the first unknown [section] header, or 0
  std::string bad_section;
};

bool IsKnownSection(std::string_view section) {
  for (const Spec& spec : kSpecs) {
    if (section == spec.section) return true;
  }
  return false;
}

// inih calls the handler only for keys, so an unknown section without keys
// would pass unnoticed: headers are checked as they are read.
void CheckIniSectionHeader(IniReader* r, std::string_view line) {
  if (r->bad_section_line != 0) return;
  if (r->line == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  if (!line.starts_with('[')) return;
  size_t close = line.find(']');
  if (close == std::string_view::npos) return;  // inih: syntax error
  std::string_view name = line.substr(1, close - 1);
  if (!IsKnownSection(name)) {
    r->bad_section_line = r->line;
    r->bad_section = name;
  }
}

char* ReadIniLine(char* str, int num, void* stream) {
  auto* r = static_cast<IniReader*>(stream);
  size_t cap = num > 0 ? static_cast<size_t>(num) - 1 : 0;
  r->max_bytes = static_cast<int>(cap);
  size_t n = 0;
  bool any = false;
  bool overlong = false;
  int c;
  while ((c = getc(r->file)) != EOF) {
    any = true;
    if (n < cap) {
      str[n++] = static_cast<char>(c);
    } else if (c != '\n' && c != '\r') {
      overlong = true;
    }
    if (c == '\n') break;
  }
  if (ferror(r->file)) {
    r->read_error = true;
    r->read_errno = errno;
    return nullptr;
  }
  if (!any) return nullptr;
  str[n] = '\0';
  ++r->line;
  if (overlong && r->overlong_line == 0) r->overlong_line = r->line;
  CheckIniSectionHeader(r, std::string_view(str, n));
  return str;
}

struct IniState {
  Settings* settings;
  std::vector<std::string>* sources;
  const IniReader* reader;
  std::string path;
  std::string first_error;  // the first error the handler found ...
  int error_line = 0;       // ... and its line
  std::vector<char> form;   // per spec: 0, 'v' (key) or 'f' (key_file)
};

// Records the handler's first error; returns 0 (inih's "error").
int IniError(IniState* st, std::string message) {
  if (st->error_line == 0) {
    st->error_line = st->reader->line;
    st->first_error = std::move(message);
  }
  return 0;
}

int OnIniValue(void* user, const char* section, const char* name,
               const char* value) {
  auto* st = static_cast<IniState*>(user);
  std::string sec(section), key(name);
  if (sec.empty()) {
    return IniError(st, "key \"" + key + "\" is outside a [section]");
  }
  for (size_t n = 0; n < kSpecCount; ++n) {
    const Spec& spec = kSpecs[n];
    if (sec != spec.section) continue;
    std::string text = value;
    char form = 'v';
    if (spec.file_variant && key == std::string(spec.key) + "_file") {
      form = 'f';
    } else if (key != spec.key) {
      continue;
    }
    if (st->form[n] != 0 && st->form[n] != form) {
      return IniError(st, "[" + sec + "] " + key + ": set " + spec.key +
                              " or " + spec.key + "_file, not both");
    }
    st->form[n] = form;
    if (form == 'f') {
      Result<std::string> r = ReadSecretFile(text);
      if (!r.ok()) {
        return IniError(st,
                        "[" + sec + "] " + key + ": " + r.status().message());
      }
      text = *r;
    }
    Status s = Apply(spec, text, st->settings);
    if (!s.ok()) {
      return IniError(
          st, "[" + sec + "] " + key + " (" + spec.env + "): " + s.message());
    }
    (*st->sources)[n] = "file " + st->path;
    return 1;
  }
  return IniError(st, IsKnownSection(sec) ? "unknown key \"" + key +
                                                "\" in section [" + sec + "]"
                                          : "unknown section [" + sec + "]");
}

Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources) {
  FilePtr f(fopen(path.c_str(), "r"));
  if (f == nullptr) {
    int err = errno;
    return Status::InvalidArgument("cannot open configuration file \"" + path +
                                   "\": " + strerror(err));
  }
  IniReader reader;
  reader.file = f.get();
  IniState st{
      s, sources, &reader, path, {}, 0, std::vector<char>(kSpecCount, 0)};
  int rc = ini_parse_stream(ReadIniLine, &reader, OnIniValue, &st);
  if (reader.read_error) {
    return Status::InvalidArgument("cannot read configuration file \"" + path +
                                   "\": " + strerror(reader.read_errno));
  }
  if (rc == -2) return Status::Internal("out of memory reading " + path);
  if (rc < 0) {
    return Status::InvalidArgument("cannot read configuration file \"" + path +
                                   "\"");
  }
  // inih reports the first line with any error, ours or a syntax error; the
  // message must be the one of that line.
  int first = 0;
  for (int line :
       {rc, st.error_line, reader.overlong_line, reader.bad_section_line}) {
    if (line > 0 && (first == 0 || line < first)) first = line;
  }
  if (first == 0) return Status::OK();
  std::string what = "syntax error";
  if (first == reader.overlong_line) {
    what = "line too long (more than " + std::to_string(reader.max_bytes) +
           " bytes)";
  } else if (first == reader.bad_section_line) {
    what = "unknown section [" + reader.bad_section + "]";
  } else if (first == st.error_line) {
    what = st.first_error;
  }
  return Status::InvalidArgument(path + ":" + std::to_string(first) + ": " +
                                 what);
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
    std::string line =
        std::string(kSpecs[n].env) + " = " + Show(kSpecs[n], settings_);
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
    if (close == std::string::npos || close == 1 || close + 1 >= text.size() ||
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
    // "::1:80" would be ambiguous and "::1" would read as port 1.
    if (out.host.find_first_of(":[]") != std::string::npos) {
      return Status::InvalidArgument(
          "\"" + text + "\" is not host:port (write IPv6 as [v6]:port)");
    }
  }
  if (out.host.find_first_of(" \t\r\n/") != std::string::npos) {
    return Status::InvalidArgument("\"" + text + "\" has an invalid host");
  }
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  int p = digits ? std::stoi(port) : 0;
  if (p < 1 || p > 65535) {
    return Status::InvalidArgument("\"" + text +
                                   "\" has no valid port (1..65535)");
  }
  out.port = p;
  return out;
}

}  // namespace awc::config
