#include "config/setting_spec.h"

#include <libpq-fe.h>

#include <cstdio>
#include <string_view>

#include "common/numbers.h"
#include "common/redact.h"
#include "http/listen_address.h"
#include "store/s3_options.h"
#include "store/store_url.h"

namespace awc::config {
namespace {

bool IsControlByte(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// The byte's two hex digits.
std::string HexDigits(char c) {
  char buf[4];
  snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
  return buf;
}

// A control byte cannot be meant in a value (a URL, a name, a number, a
// key), and would forge lines where the value is shown: refused, naming
// the byte's code, not showing the value.
Status RefuseControlBytes(std::string_view v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (IsControlByte(v[i])) {
      return Status::InvalidArgument("control character 0x" + HexDigits(v[i]) +
                                     " in the value (at byte " +
                                     std::to_string(i + 1) + ")");
    }
  }
  return Status::OK();
}

// The checks see non-empty values only: Apply() refuses "" first.

// A URL holds no control byte (one is written percent-encoded). The
// key=value form may have blanks between its pairs, tab and newline
// included, as libpq reads them; no value libpq reads holds one.
Status CheckDatabaseUrl(const std::string& v) {
  if (v.starts_with("postgresql://") || v.starts_with("postgres://")) {
    AWC_RETURN_IF_ERROR(RefuseControlBytes(v));
  }
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(v.c_str(), &err);
  // libpq's message can quote the string, password included: not shown.
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) {
    return Status::InvalidArgument(
        "not a valid PostgreSQL connection string (URL or key=value)");
  }
  Status st;
  for (const PQconninfoOption* o = opts; o->keyword != nullptr && st.ok();
       ++o) {
    if (o->val == nullptr) continue;
    for (const char* c = o->val; *c != 0; ++c) {
      if (IsControlByte(*c)) {
        st = Status::InvalidArgument("control character 0x" + HexDigits(*c) +
                                     " in the value of " + o->keyword);
        break;
      }
    }
  }
  PQconninfoFree(opts);
  return st;
}

Status CheckMigrateMode(const std::string& v) {
  if (v != "auto" && v != "check") {
    return Status::InvalidArgument("\"" + v + "\" is not auto or check");
  }
  return Status::OK();
}

Status CheckPoolMode(const std::string& v) {
  if (v != "session" && v != "transaction") {
    return Status::InvalidArgument("\"" + v +
                                   "\" is not session or transaction");
  }
  return Status::OK();
}

Status CheckWorkerId(const std::string& v) {
  if (v.size() > 48) {
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
  return http::ParseListenAddress(v).status();
}

// The syntax the object store is opened with (store_url.h), including
// s3:// in a build without the S3 store. Unset, the daemon refuses to
// start (RequireDaemon).
Status CheckCasUrl(const std::string& v) {
  return store::ParseStoreUrl(v).status();
}

// A repair store is read from: memory:// would hold nothing to repair from.
Status CheckRepairUrl(const std::string& v) {
  AWC_ASSIGN_OR_RETURN(store::StoreUrl url, store::ParseStoreUrl(v));
  if (url.scheme == store::StoreUrl::Scheme::kMemory) {
    return Status::InvalidArgument(
        "memory:// holds nothing to repair from; use file:// or s3://");
  }
  return Status::OK();
}

// Unset means the region's AWS endpoint (Settings::EffectiveS3Endpoint).
Status CheckS3Endpoint(const std::string& v) {
  return store::s3::ParseEndpoint(v).status();
}

Status CheckS3Region(const std::string& v) {
  if (!store::s3::IsValidRegion(v)) {
    return Status::InvalidArgument("expected a region name such as us-east-1");
  }
  return Status::OK();
}

constexpr int64_t kDay = 86400;
constexpr int64_t kMax = INT64_MAX / 1000;
// Retention periods: within what a PostgreSQL interval holds.
constexpr int64_t kCentury = 100 * 365 * kDay;

const Spec kSpecs[] = {
    {"DATABASE_URL", "database", "url", &Settings::database_url, 0, 0, true,
     true, CheckDatabaseUrl},
    {"AWC_MIGRATE", "database", "migrate", &Settings::migrate, 0, 0, false,
     false, CheckMigrateMode},
    {"AWC_DATABASE_POOL_MODE", "database", "pool_mode",
     &Settings::database_pool_mode, 0, 0, false, false, CheckPoolMode},
    {"AWC_PRODUCTION", "database", "production", &Settings::production},
    {"AWC_CAS_URL", "cas", "url", &Settings::cas_url, 0, 0, false, false,
     CheckCasUrl},
    {"AWC_CAS_REPAIR_URL", "cas", "repair_url", &Settings::cas_repair_url, 0, 0,
     false, false, CheckRepairUrl},
    {"AWC_WORKER_ID", "worker", "id", &Settings::worker_id, 0, 0, false, false,
     CheckWorkerId},
    {"AWC_WORKER_CONCURRENCY", "worker", "concurrency",
     &Settings::worker_concurrency, 1, kMaxWorkerConcurrency},
    {"AWC_WORKER_BACKGROUND_CONCURRENCY", "worker", "background_concurrency",
     &Settings::worker_background_concurrency, 0, kMaxWorkerConcurrency},
    {"AWC_WORKER_LEASE_SECS", "worker", "lease_secs",
     &Settings::worker_lease_secs, 1, 7 * kDay},
    {"AWC_WORKER_POLL_INTERVAL_MS", "worker", "poll_interval_ms",
     &Settings::worker_poll_interval_ms, 10, 3600 * 1000},
    {"AWC_WORKER_GIVE_UP_SECS", "worker", "give_up_secs",
     &Settings::worker_give_up_secs, 0, 7 * kDay},
    // At most half of fleet::kFreshSecs, so that a live worker always
    // reads as fresh in awcctl.
    {"AWC_WORKER_HEARTBEAT_SECS", "worker", "heartbeat_secs",
     &Settings::worker_heartbeat_secs, 1, 30},
    {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "worker", "heartbeat_timeout_secs",
     &Settings::worker_heartbeat_timeout_secs, 0, 7 * kDay},
    {"AWC_RETENTION_GRACE_SECS", "retention", "grace_secs",
     &Settings::retention_grace_secs, 0, kMax},
    {"AWC_GC_GRACE_SECS", "gc", "grace_secs", &Settings::gc_grace_secs, 0,
     kMax},
    {"AWC_GC_BATCH_SIZE", "gc", "batch_size", &Settings::gc_batch_size, 1,
     10'000'000},
    {"AWC_GC_CANARY_SIZE", "gc", "canary_size", &Settings::gc_canary_size, 0,
     10'000'000},
    {"AWC_GC_DRY_RUN", "gc", "dry_run", &Settings::gc_dry_run},
    {"AWC_METRICS_LISTEN", "metrics", "listen", &Settings::metrics_listen, 0, 0,
     false, false, CheckListen},
    {"AWC_LOG_LEVEL", "log", "level", &Settings::log_level},
    {"AWC_S3_ENDPOINT", "s3", "endpoint", &Settings::s3_endpoint, 0, 0, false,
     false, CheckS3Endpoint},
    {"AWC_S3_REGION", "s3", "region", &Settings::s3_region, 0, 0, false, false,
     CheckS3Region},
    {"AWC_S3_ACCESS_KEY_ID", "s3", "access_key_id", &Settings::s3_access_key_id,
     0, 0, false, true},
    {"AWC_S3_SECRET_ACCESS_KEY", "s3", "secret_access_key",
     &Settings::s3_secret_access_key, 0, 0, true, true},
    {"AWC_S3_FORCE_PATH_STYLE", "s3", "force_path_style",
     &Settings::s3_force_path_style},
    {"AWC_S3_REPAIR_ENDPOINT", "s3", "repair_endpoint",
     &Settings::s3_repair_endpoint, 0, 0, false, false, CheckS3Endpoint},
    {"AWC_S3_REPAIR_REGION", "s3", "repair_region", &Settings::s3_repair_region,
     0, 0, false, false, CheckS3Region},
    {"AWC_S3_REPAIR_ACCESS_KEY_ID", "s3", "repair_access_key_id",
     &Settings::s3_repair_access_key_id, 0, 0, false, true},
    {"AWC_S3_REPAIR_SECRET_ACCESS_KEY", "s3", "repair_secret_access_key",
     &Settings::s3_repair_secret_access_key, 0, 0, true, true},
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
    {"AWC_SCHEDULER", "scheduler", "enabled", &Settings::scheduler, 0, 0, false,
     false, nullptr, true},
    {"AWC_SCHEDULER_LEASE_SECS", "scheduler", "lease_secs",
     &Settings::scheduler_lease_secs, 1, kDay},
    {"AWC_SCRUB_INTERVAL_SECS", "scrub", "interval_secs",
     &Settings::scrub_interval_secs, 0, kCentury},
    {"AWC_SCRUB_MAX_PER_RUN", "scrub", "max_per_run",
     &Settings::scrub_max_per_run, 1, 1'000'000},
    {"AWC_SCRUB_BUDGET_MB_PER_SEC", "scrub", "budget_mb_per_sec",
     &Settings::scrub_budget_mb_per_sec, 0, 1'000'000},
    {"AWC_SCRUB_BUDGET_OBJECTS_PER_SEC", "scrub", "budget_objects_per_sec",
     &Settings::scrub_budget_objects_per_sec, 0, 100'000'000},
    {"AWC_JOB_RETENTION_SECS", "job", "retention_secs",
     &Settings::job_retention_secs, 0, kCentury},
    {"AWC_DEAD_LETTER_RETENTION_SECS", "dead_letter", "retention_secs",
     &Settings::dead_letter_retention_secs, 0, kCentury},
    {"AWC_AUDIT_RETENTION_SECS", "audit", "retention_secs",
     &Settings::audit_retention_secs, 0, kCentury},
};

Result<bool> ParseBool(const std::string& text) {
  if (text == "1" || text == "true" || text == "TRUE") return true;
  if (text == "0" || text == "false" || text == "FALSE") return false;
  return Status::InvalidArgument("\"" + text +
                                 "\" is not a boolean (1, true, TRUE, 0, "
                                 "false, FALSE)");
}

}  // namespace

std::span<const Spec> Specs() { return kSpecs; }

Status EmptyValue() {
  return Status::InvalidArgument(
      "empty value; leave the setting unset to use its default");
}

// Applies one textual value to its setting; the error has no setting name
// (callers add it, with file and line where there is one).
Status Apply(const Spec& spec, const std::string& text, Settings* s) {
  if (text.empty()) return EmptyValue();
  // DATABASE_URL's check knows where its form allows blanks.
  if (spec.check != CheckDatabaseUrl) {
    AWC_RETURN_IF_ERROR(RefuseControlBytes(text));
  }
  if (auto* f = std::get_if<std::string Settings::*>(&spec.field)) {
    if (spec.check != nullptr) AWC_RETURN_IF_ERROR(spec.check(text));
    s->** f = text;
  } else if (auto* i = std::get_if<int64_t Settings::*>(&spec.field)) {
    AWC_ASSIGN_OR_RETURN(int64_t v, ParseInt64(text));
    if (v < spec.min || v > spec.max) {
      return Status::InvalidArgument(text + " is out of range (" +
                                     std::to_string(spec.min) + ".." +
                                     std::to_string(spec.max) + ")");
    }
    s->** i = v;
  } else if (auto* b = std::get_if<bool Settings::*>(&spec.field)) {
    if (spec.on_off && (text == "on" || text == "off")) {
      s->** b = text == "on";
      return Status::OK();
    }
    Result<bool> v = ParseBool(text);
    if (!v.ok() && spec.on_off) {
      return Status::InvalidArgument("\"" + text +
                                     "\" is not on or off (also 1, true, "
                                     "TRUE, 0, false, FALSE)");
    }
    if (!v.ok()) return v.status();
    s->** b = *v;
  } else if (auto* l = std::get_if<obs::LogLevel Settings::*>(&spec.field)) {
    AWC_ASSIGN_OR_RETURN(obs::LogLevel v, obs::ParseLogLevel(text));
    s->** l = v;
  }
  return Status::OK();
}

std::string EscapeControlBytes(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += IsControlByte(c) ? "\\x" + HexDigits(c) : std::string(1, c);
  }
  return out;
}

std::string Show(const Spec& spec, const Settings& s) {
  if (std::string_view(spec.env) == "AWC_S3_ENDPOINT") {
    // Unset means the region's AWS endpoint: show the one that is used.
    // An endpoint with user info is refused when loading; should one get
    // here, its credentials are not shown.
    std::string v = s.EffectiveS3Endpoint();
    size_t at = v.find('@');
    if (at == std::string::npos) return v;
    size_t sep = v.find("://");
    size_t start = sep == std::string::npos ? 0 : sep + 3;
    return v.substr(0, start) + std::string(kRedacted) + v.substr(at);
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
    if (spec.on_off) return s.**b ? "on" : "off";
    return s.**b ? "true" : "false";
  }
  return obs::LogLevelName(s.*std::get<obs::LogLevel Settings::*>(spec.field));
}

}  // namespace awc::config
