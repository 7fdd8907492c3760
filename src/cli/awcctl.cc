#include "cli/awcctl.h"

#include <ev.h>
#include <getopt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli/importer.h"
#include "cli/schedules_cmd.h"
#include "common/numbers.h"
#include "common/redact.h"
#include "config/config.h"
#include "db/pg.h"
#include "handlers/payload.h"
#include "migrate/migrator.h"
#include "obs/log.h"
#include "options/module_options.h"
#include "queue/admin.h"
#include "store/open_store.h"

namespace awc::cli {
namespace {

constexpr const char* kUsage =
    "usage: awcctl [-c FILE] COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  migrate                          apply pending schema migrations\n"
    "  import --tenant T [--workspace ID] DIR\n"
    "                                   upload DIR as a snapshot and enqueue\n"
    "                                   its validation; prints the snapshot "
    "id\n"
    "  enqueue KIND JSON [--max-attempts N] [--delay SECS]\n"
    "                                   insert a job; prints its id\n"
    "  jobs [--state S] [--kind K] [--limit N]\n"
    "                                   list jobs, newest first\n"
    "%s"
    "\n"
    "Settings come from the environment and the INI file given with -c or\n"
    "AWC_CONFIG, as for awc-worker; see awcctl(1).\n";

// Exit codes: 0 done, 1 runtime error, 2 usage error.
constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

void PrintUsage(FILE* out) { fprintf(out, kUsage, kSchedulesUsage); }

int Usage(const std::string& problem) {
  fprintf(stderr, "awcctl: %s\n", problem.c_str());
  PrintUsage(stderr);
  return kUsageError;
}

int Fail(const Status& s) {
  fprintf(stderr, "awcctl: %s\n", Scrub(s.message()).c_str());
  return kRuntimeError;
}

// A positive integer argument (ParseInt64's syntax), or nullopt.
std::optional<int64_t> ParsePositive(const char* text) {
  Result<int64_t> v = ParseInt64(text);
  if (!v.ok() || *v < 1) return std::nullopt;
  return *v;
}

// What every command but help needs: settings and a database connection.
struct Session {
  config::Settings settings;
  std::unique_ptr<db::PgConn> conn;
};

// Settings and a connection to a database whose schema this awcctl knows
// (`migrate` is the one command that accepts pending migrations).
Result<Session> Open(const std::string& config_path,
                     bool allow_pending = false) {
  AWC_ASSIGN_OR_RETURN(config::Config cfg,
                       config::Config::Load(config_path, config::ProcessEnv()));
  Session s;
  s.settings = cfg.settings();
  if (s.settings.database_url.empty()) {
    return Status::InvalidArgument("DATABASE_URL is not set");
  }
  AWC_ASSIGN_OR_RETURN(s.conn,
                       db::PgConn::Connect(s.settings.database_url, "awcctl"));
  if (!allow_pending) {
    AWC_ASSIGN_OR_RETURN(migrate::SchemaState state, migrate::Inspect(*s.conn));
    if (!state.pending.empty()) {
      return Status::FailedPrecondition(
          "the database schema is not up to date (" +
          std::to_string(state.pending.size()) +
          " migrations pending); run awcctl migrate");
    }
  }
  return s;
}

int Migrate(const std::string& config_path, int argc, char**) {
  if (argc > 1) return Usage("migrate takes no arguments");
  Result<Session> s = Open(config_path, /*allow_pending=*/true);
  if (!s.ok()) return Fail(s.status());
  Result<std::vector<std::string>> applied = migrate::Migrate(*s->conn);
  if (!applied.ok()) return Fail(applied.status().WithContext("migrations"));
  for (const std::string& name : *applied) printf("applied %s\n", name.c_str());
  Result<migrate::SchemaState> state = migrate::Inspect(*s->conn);
  if (!state.ok()) return Fail(state.status());
  printf("schema is at version %d\n", state->current_version);
  return 0;
}

int Import(const std::string& config_path, int argc, char** argv) {
  static const option kLong[] = {{"tenant", required_argument, nullptr, 't'},
                                 {"workspace", required_argument, nullptr, 'w'},
                                 {nullptr, 0, nullptr, 0}};
  ImportOptions opt;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":t:w:", kLong, nullptr)) != -1;) {
    if (c == 't') {
      opt.tenant_id = optarg;
    } else if (c == 'w') {
      std::optional<int64_t> id = ParsePositive(optarg);
      if (!id) return Usage("--workspace needs a positive integer");
      opt.workspace_id = id;
    } else {
      return Usage("import: bad option " + std::string(argv[optind - 1]));
    }
  }
  if (opt.tenant_id.empty()) return Usage("import needs --tenant");
  if (argc - optind != 1) return Usage("import needs exactly one DIR");
  opt.dir = argv[optind];
  Result<Session> s = Open(config_path);
  if (!s.ok()) return Fail(s.status());
  Result<store::StoreUrl> url = options::StoreUrlFrom(s->settings);
  if (!url.ok()) return Fail(url.status());
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  int code = 0;
  {
    Result<std::unique_ptr<store::ObjectStore>> st =
        store::OpenStore(*url, options::S3OptionsFrom(s->settings), loop);
    Result<ImportResult> r = st.ok() ? ImportTree(*s->conn, **st, opt)
                                     : Result<ImportResult>(st.status());
    if (!r.ok()) {
      code = Fail(r.status());
    } else {
      for (const std::string& path : r->skipped) {
        fprintf(stderr, "awcctl: skipped \"%s\" (not a file or directory)\n",
                path.c_str());
      }
      fprintf(stderr,
              "awcctl: imported %lld objects (%lld uploaded, %lld "
              "deduplicated, %lld bytes) as snapshot %lld of tenant %s; "
              "validation job %lld\n",
              static_cast<long long>(r->objects),
              static_cast<long long>(r->uploaded),
              static_cast<long long>(r->deduplicated),
              static_cast<long long>(r->bytes),
              static_cast<long long>(r->snapshot_id), opt.tenant_id.c_str(),
              static_cast<long long>(r->job_id));
      printf("%lld\n", static_cast<long long>(r->snapshot_id));
    }
  }
  ev_loop_destroy(loop);
  return code;
}

int Enqueue(const std::string& config_path, int argc, char** argv) {
  static const option kLong[] = {
      {"max-attempts", required_argument, nullptr, 'm'},
      {"delay", required_argument, nullptr, 'd'},
      {nullptr, 0, nullptr, 0}};
  std::optional<int> max_attempts;
  double delay = 0;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":m:d:", kLong, nullptr)) != -1;) {
    if (c == 'm') {
      std::optional<int64_t> n = ParsePositive(optarg);
      if (!n || *n > 1000000) {
        return Usage("--max-attempts needs an integer from 1 to 1000000");
      }
      max_attempts = static_cast<int>(*n);
    } else if (c == 'd') {
      char* end = nullptr;
      delay = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || delay < 0) {
        return Usage("--delay needs a number of seconds >= 0");
      }
    } else {
      return Usage("enqueue: bad option " + std::string(argv[optind - 1]));
    }
  }
  if (argc - optind != 2) return Usage("enqueue needs KIND and JSON");
  std::string kind = argv[optind], payload = argv[optind + 1];
  if (kind.empty()) return Usage("enqueue: KIND is empty");
  if (!ParseJson(payload).ok()) {
    return Usage("enqueue: JSON is not valid JSON");
  }
  Result<Session> s = Open(config_path);
  if (!s.ok()) return Fail(s.status());
  Result<int64_t> id =
      queue::Enqueue(*s->conn, kind, payload, max_attempts, delay);
  if (!id.ok()) return Fail(id.status());
  printf("%lld\n", static_cast<long long>(*id));
  return 0;
}

int Jobs(const std::string& config_path, int argc, char** argv) {
  static const option kLong[] = {{"state", required_argument, nullptr, 's'},
                                 {"kind", required_argument, nullptr, 'k'},
                                 {"limit", required_argument, nullptr, 'l'},
                                 {nullptr, 0, nullptr, 0}};
  std::string state, kind;
  int limit = 50;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":s:k:l:", kLong, nullptr)) != -1;) {
    if (c == 's') {
      state = optarg;
      const std::vector<std::string> kStates = {
          "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"};
      if (std::find(kStates.begin(), kStates.end(), state) == kStates.end()) {
        return Usage(
            "--state must be PENDING, RUNNING, COMPLETED, FAILED or "
            "CANCELLED");
      }
    } else if (c == 'k') {
      kind = optarg;
    } else if (c == 'l') {
      std::optional<int64_t> n = ParsePositive(optarg);
      if (!n || *n > 100000) return Usage("--limit needs 1 to 100000");
      limit = static_cast<int>(*n);
    } else {
      return Usage("jobs: bad option " + std::string(argv[optind - 1]));
    }
  }
  if (optind != argc) return Usage("jobs takes no positional arguments");
  Result<Session> s = Open(config_path);
  if (!s.ok()) return Fail(s.status());
  Result<std::vector<queue::JobRow>> rows =
      queue::ListJobs(*s->conn, state, kind, limit);
  if (!rows.ok()) return Fail(rows.status());
  printf("%-8s %-20s %-9s %-8s %-20s %-20s %s\n", "ID", "KIND", "STATE",
         "TRIES", "RUN_AT", "UPDATED_AT", "LAST_ERROR");
  for (const queue::JobRow& r : *rows) {
    std::string tries =
        std::to_string(r.attempts) + "/" + std::to_string(r.max_attempts);
    std::string error = r.last_error.substr(0, 60);
    for (char& ch : error) {
      if (ch == '\n' || ch == '\t') ch = ' ';
    }
    printf("%-8lld %-20s %-9s %-8s %-20s %-20s %s\n",
           static_cast<long long>(r.id), r.kind.c_str(), r.state.c_str(),
           tries.c_str(), r.run_at.c_str(), r.updated_at.c_str(),
           Scrub(error).c_str());
  }
  return 0;
}

}  // namespace

int AwcctlMain(int argc, char** argv) {
  // awcctl reports in its own words; library events (e.g. "migration
  // applied") would only repeat them.
  obs::SetLogLevel(obs::LogLevel::kWarn);
  std::string config_path;
  int i = 1;
  while (i < argc && argv[i][0] == '-') {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      PrintUsage(stdout);
      return 0;
    }
    if (arg == "-V" || arg == "--version") {
      printf("awcctl %s\n", AWC_VERSION);
      return 0;
    }
    if (arg == "-c" && i + 1 < argc) {
      config_path = argv[i + 1];
      i += 2;
      continue;
    }
    return Usage("unknown option " + arg);
  }
  if (i >= argc) return Usage("no command given");
  std::string command = argv[i];
  int sub_argc = argc - i;
  char** sub_argv = argv + i;
  if (command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "migrate") return Migrate(config_path, sub_argc, sub_argv);
  if (command == "import") return Import(config_path, sub_argc, sub_argv);
  if (command == "enqueue") return Enqueue(config_path, sub_argc, sub_argv);
  if (command == "jobs") return Jobs(config_path, sub_argc, sub_argv);
  if (command == "schedules") {
    return SchedulesMain(sub_argc, sub_argv, [&config_path]() {
      Result<Session> s = Open(config_path);
      return s.ok() ? Result<std::unique_ptr<db::PgConn>>(std::move(s->conn))
                    : Result<std::unique_ptr<db::PgConn>>(s.status());
    });
  }
  return Usage("unknown command \"" + command + "\"");
}

}  // namespace awc::cli
