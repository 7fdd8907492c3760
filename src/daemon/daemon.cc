#include "daemon/daemon.h"

#include <bsd/unistd.h>
#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "catalog/snapshot_verdict.h"
#include "common/build_version.h"
#include "config/config.h"
#include "config/setting_spec.h"
#include "config/unknown_variables.h"
#include "daemon/restart_settings.h"
#include "db/pg.h"
#include "fleet/workers.h"
#include "gc/epoch_result.h"
#include "handlers/handler_options.h"
#include "migrate/migrator.h"
#include "obs/log.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "options/module_options.h"
#include "process/io_budget.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_process.h"
#include "store/open_store.h"
#include "store/s3_options.h"
#include "store/store_url.h"
#include "supervisor/notify.h"
#include "supervisor/supervisor.h"
#include "worker/worker_process.h"

extern char** environ;

namespace awc::daemon {
namespace {

constexpr const char* kUsage =
    "usage: awc-worker [-t] [-c FILE]\n"
    "       awc-worker -h | --help | -V | --version\n"
    "\n"
    "  -c FILE     read settings from the INI file FILE (also AWC_CONFIG;\n"
    "              default " AWC_DEFAULT_CONFIG_FILE
    " when it exists)\n"
    "  -t          check the configuration, print the effective settings\n"
    "              (secrets redacted) and exit\n"
    "  -h, --help  show this help\n"
    "  -V, --version\n"
    "              show the version\n"
    "\n"
    "Settings come from the environment (DATABASE_URL and AWC_CAS_URL are\n"
    "required); see awc-worker(8) and awc-worker.conf(5).\n";

int Fail(const Status& s) {
  fprintf(stderr, "%sawc-worker: %s\n",
          obs::JournalPriority(obs::LogLevel::kError).c_str(),
          s.message().c_str());
  return 1;
}

// Every error, one line each, in the order they were found.
int FailAll(const std::vector<Status>& errors) {
  for (const Status& s : errors) Fail(s);
  return 1;
}

struct Args {
  std::string config_path;
  bool test_config = false;
};

// Returns the exit code when the arguments say to exit right away.
std::optional<int> ParseArgs(int argc, char** argv, Args* args) {
  static const option kLong[] = {{"help", no_argument, nullptr, 'h'},
                                 {"version", no_argument, nullptr, 'V'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":c:thV", kLong, nullptr)) != -1) {
    switch (c) {
      case 'c':
        args->config_path = optarg;
        break;
      case 't':
        args->test_config = true;
        break;
      case 'h':
        fputs(kUsage, stdout);
        return 0;
      case 'V':
        printf("awc-worker %s\n", BuildVersion());
        return 0;
      case ':':
        fprintf(stderr, "awc-worker: option -%c needs an argument\n%s", optopt,
                kUsage);
        return 1;
      default:
        if (optopt != 0) {
          fprintf(stderr, "awc-worker: unknown option -%c\n%s", optopt, kUsage);
        } else {
          fprintf(stderr, "awc-worker: unknown option %s\n%s", argv[optind - 1],
                  kUsage);
        }
        return 1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "awc-worker: unexpected argument \"%s\"\n%s", argv[optind],
            kUsage);
    return 1;
  }
  return std::nullopt;
}

// What the daemon's modules get from the settings (module_options.h).
struct ModuleOptions {
  store::StoreUrl store_url;
  store::S3Options s3;
  std::optional<store::StoreUrl> repair_url;  // AWC_CAS_REPAIR_URL
  store::S3Options repair_s3;
  handlers::HandlerOptions handlers;
  worker::WorkerOptions worker;
  supervisor::Supervisor::Options supervisor;
  std::optional<scheduler::SchedulerOptions> scheduler;  // AWC_SCHEDULER=off
};

// Step 1 after loading: the settings the daemon requires, and the options
// of its modules. -t runs the same, so it refuses what startup refuses.
Result<ModuleOptions> Prepare(const config::Settings& settings) {
  for (const Status& missing : config::RequireDaemon(settings)) return missing;
  ModuleOptions o;
  AWC_ASSIGN_OR_RETURN(o.store_url, options::StoreUrlFrom(settings));
  o.s3 = options::S3OptionsFrom(settings);
  AWC_ASSIGN_OR_RETURN(o.repair_url, options::RepairStoreUrlFrom(settings));
  o.repair_s3 = options::RepairS3OptionsFrom(settings);
  o.handlers = options::HandlerOptionsFrom(settings);
  o.worker = options::WorkerOptionsFrom(settings);
  AWC_ASSIGN_OR_RETURN(o.supervisor, options::SupervisorOptionsFrom(settings));
  if (settings.scheduler) o.scheduler = options::SchedulerOptionsFrom(settings);
  return o;
}

// Step 1: every error of the settings, in the order an operator fixes them:
// the values, the checks across them, then the settings startup requires
// and the options of the modules (which only valid values can give).
std::vector<Status> SettingsErrors(const config::Config::Loaded& loaded) {
  if (!loaded.errors.empty()) return loaded.errors;
  const config::Settings& s = loaded.config.settings();
  std::vector<Status> errors = config::RequireDaemon(s);
  if (errors.empty()) {
    if (Status st = Prepare(s).status(); !st.ok()) errors.push_back(st);
  }
  return errors;
}

// -t: the errors first, all of them, then the warnings; with no error, the
// settings and "is ok" (awc-worker(8), -t). With errors the settings are
// not printed: they are not what would run, and the errors would scroll
// out of sight above them.
int TestConfig(const config::Config& cfg, const std::vector<Status>& errors,
               const std::vector<config::UnknownVariable>& unknown) {
  for (const Status& s : errors) {
    fprintf(stderr, "awc-worker: %s\n", s.message().c_str());
  }
  for (const config::UnknownVariable& u : unknown) {
    fprintf(stderr, "awc-worker: warning: %s\n", u.Message().c_str());
  }
  if (!errors.empty()) return 1;
  const config::Settings& s = cfg.settings();
  for (const std::string& line : cfg.Describe()) printf("%s\n", line.c_str());
  fflush(stdout);
  // The file's name as -t shows it: one line, whatever bytes it holds.
  fprintf(stderr, "awc-worker: configuration%s%s is ok\n",
          s.config_file.empty() ? "" : " file ",
          config::EscapeControlBytes(s.config_file).c_str());
  return 0;
}

// A schema with a later release's migrations, all compatible with this
// build (the migrator refuses the others): this host runs beside the newer
// ones until it is upgraded (docs/operations.md, "Rolling upgrades").
void WarnOfNewerSchema(db::PgConn& conn) {
  Result<migrate::SchemaState> state = migrate::Inspect(conn);
  if (!state.ok() || state->newer.empty()) return;
  std::string names;
  for (const std::string& n : state->newer) {
    names += (names.empty() ? "" : ", ") + n;
  }
  obs::Warn("migrate",
            "the database has migrations of a later release, compatible "
            "with this build; upgrade this host")
      .Int("schema_version", state->current_version)
      .Int("build_knows", state->latest_version)
      .Str("newer", names)
      .Emit();
}

// Startup's warning of each unknown AWC_* variable (unknown_variables.h).
void WarnUnknown(const std::vector<config::UnknownVariable>& unknown) {
  for (const config::UnknownVariable& u : unknown) {
    obs::Event e =
        obs::Warn("startup", "environment variable is not a setting; ignored");
    e.Str("variable", u.name);
    if (!u.nearest.empty()) e.Str("did_you_mean", u.nearest);
    e.Emit();
  }
}

// Opens the store and reads its marker (store/store_marker.h): a permanent
// error (no marker, as after a typo in the URL or with a volume not
// mounted; bad credentials; a missing bucket; an unwritable directory)
// stops startup; a transient one (the S3 endpoint is briefly down) only
// warns.
Status CheckStore(const store::StoreUrl& url, const store::S3Options& s3,
                  const char* what) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  Status s = store::OpenInitializedStore(url, s3, loop).status();
  ev_loop_destroy(loop);
  if (s.IsTransient()) {
    obs::Warn("startup", std::string(what) + " not reachable yet")
        .Str("error", s.message())
        .Emit();
    return Status::OK();
  }
  return s.WithContext(what);
}

// How much more time each EXTEND_TIMEOUT_USEC asks for while startup
// waits on another runner's migration lock (sent about every second).
constexpr double kStartupExtendSecs = 5.0;

// The scheduler child (docs/scheduler.md, "Scheduler"): restarted at
// once after it gave up leadership; its role is in the shared metrics,
// which it can no longer reset once it is gone.
supervisor::Supervisor::ChildSpec SchedulerChild(
    const scheduler::SchedulerOptions& options, const std::string& db_url,
    obs::Metrics* metrics, std::vector<std::string> kinds) {
  supervisor::Supervisor::ChildSpec spec;
  spec.name = "scheduler";
  spec.count = 1;
  scheduler::SchedulerProcessDeps deps{.options = options,
                                       .database_url = db_url,
                                       .metrics = metrics,
                                       .kinds = std::move(kinds)};
  spec.main = [deps](int) { return scheduler::RunSchedulerProcess(deps); };
  spec.restart_at_once_code = scheduler::kExitLeadershipLost;
  spec.on_exit = [metrics](int) { metrics->SetSchedulerLeader(false); };
  spec.status = [metrics] {
    return std::string("scheduler ") +
           (metrics->SchedulerLeader() ? "leader" : "standby");
  };
  return spec;
}

// The label sets of the handlers' verdicts and GC epochs, shown at 0 from
// the first scrape so that an alert on their increase sees the first one
// (awc-worker(8), METRICS). Their values belong to catalog/ and gc/.
void DeclareClosedLabelSets(obs::Metrics& metrics) {
  for (const catalog::SnapshotVerdictRow& v : catalog::kSnapshotVerdicts) {
    metrics.Declare(obs::MetricId::kSnapshotVerdicts, obs::MakeLabels(v.value));
  }
  for (const gc::GcEpochResultRow& r : gc::kGcEpochResults) {
    metrics.Declare(obs::MetricId::kGcEpochs, obs::MakeLabels(r.value));
  }
}

// One reading of the configuration, as a generation of children needs it;
// shared by the closures that fork them, so it lives as long as they may.
struct Prepared {
  config::Settings settings;
  ModuleOptions modules;
};

Result<std::shared_ptr<const Prepared>> PrepareFrom(
    const config::Settings& settings) {
  auto p = std::make_shared<Prepared>();
  p->settings = settings;
  AWC_ASSIGN_OR_RETURN(p->modules, Prepare(p->settings));
  return std::shared_ptr<const Prepared>(std::move(p));
}

// The shared parts every generation's children use.
struct Shared {
  const handlers::Registry* registry;
  obs::Metrics* metrics;
  obs::WorkerStatusTable* status;
  process::IoBudget* read_budget;
};

supervisor::Supervisor::Generation MakeGeneration(
    const std::shared_ptr<const Prepared>& p, const Shared& shared) {
  supervisor::Supervisor::Generation g;
  g.options = p->modules.supervisor;
  g.worker_main = [p, shared](int slot) {
    worker::WorkerProcessDeps deps{
        .options = p->modules.worker,
        .database_url = p->settings.database_url,
        .registry = shared.registry,
        .handler_options = &p->modules.handlers,
        .store_url = &p->modules.store_url,
        .s3_options = &p->modules.s3,
        .repair_url = p->modules.repair_url ? &*p->modules.repair_url : nullptr,
        .repair_s3_options = &p->modules.repair_s3,
        .metrics = shared.metrics,
        .status = shared.status,
        .read_budget = shared.read_budget};
    return worker::RunWorkerProcess(deps, slot);
  };
  if (p->modules.scheduler) {
    g.others.push_back(SchedulerChild(*p->modules.scheduler,
                                      p->settings.database_url, shared.metrics,
                                      shared.registry->Kinds()));
  }
  g.on_run = [p, shared] {
    shared.status->SetBackgroundLimit(options::BackgroundPlaces(p->settings));
    obs::SetLogLevel(p->settings.log_level);
    obs::SetLogWorker(p->settings.worker_id);
  };
  return g;
}

// SIGHUP: the configuration file and the _FILE secrets are read again
// (the environment is the one the process started with); settings that
// need a restart keep their running values.
class Reloader {
 public:
  Reloader(std::string config_path, std::shared_ptr<const Prepared> running,
           Shared shared)
      : config_path_(std::move(config_path)),
        running_(std::move(running)),
        shared_(shared) {}

  Result<supervisor::Supervisor::Generation> operator()() {
    AWC_ASSIGN_OR_RETURN(
        config::Config cfg,
        config::Config::Load(config_path_, config::ProcessEnv(),
                             config::kDefaultConfigFile));
    config::Settings settings = cfg.settings();
    for (const std::string& name :
         KeepRestartOnlySettings(running_->settings, &settings)) {
      obs::Warn("supervisor",
                "setting changed; it takes effect at the next restart")
          .Str("setting", name)
          .Emit();
    }
    AWC_ASSIGN_OR_RETURN(std::shared_ptr<const Prepared> next,
                         PrepareFrom(settings));
    supervisor::Supervisor::Generation g = MakeGeneration(next, shared_);
    auto on_run = std::move(g.on_run);
    g.on_run = [this, next, on_run] {
      running_ = next;
      on_run();
    };
    return g;
  }

 private:
  std::string config_path_;
  std::shared_ptr<const Prepared> running_;
  Shared shared_;
};

}  // namespace

int DaemonMain(int argc, char** argv, RegisterFn register_handlers) {
  setproctitle_init(argc, argv, environ);
  Args args;
  if (std::optional<int> code = ParseArgs(argc, argv, &args)) return *code;
  // A reload asked for while starting must not kill the process: the
  // configuration is being read now anyway. The supervisor takes SIGHUP
  // over once its children run.
  signal(SIGHUP, SIG_IGN);

  // Step 1: configuration; DATABASE_URL and AWC_CAS_URL are required.
  // Every check of a setting is made here, before anything is touched.
  config::Config::Loaded loaded = config::Config::LoadAll(
      args.config_path, config::ProcessEnv(), config::kDefaultConfigFile);
  std::vector<Status> errors = SettingsErrors(loaded);
  std::vector<config::UnknownVariable> unknown =
      config::UnknownVariables(config::ProcessEnvNames());
  if (args.test_config) return TestConfig(loaded.config, errors, unknown);
  if (!errors.empty()) {
    WarnUnknown(unknown);  // it may explain an error: AWC_CAS_ULR
    return FailAll(errors);
  }
  Result<std::shared_ptr<const Prepared>> prepared =
      PrepareFrom(loaded.config.settings());
  if (!prepared.ok()) return Fail(prepared.status());
  const config::Settings& settings = (*prepared)->settings;
  const ModuleOptions* modules = &(*prepared)->modules;
  obs::SetLogLevel(settings.log_level);
  obs::SetLogWorker(settings.worker_id);
  WarnUnknown(unknown);

  obs::Info("startup", "awc-worker starting")
      .Str("version", BuildVersion())
      .Int("concurrency", settings.worker_concurrency)
      .Int("background_places", options::BackgroundPlaces(settings))
      .Bool("scheduler", settings.scheduler)
      .Emit();

  // Steps 2 and 3: connect, migrate (or, with AWC_MIGRATE=check, only
  // check that the schema is current); the connection is closed before fork.
  {
    Result<std::unique_ptr<db::PgConn>> conn = db::PgConn::Connect(
        settings.database_url, settings.worker_id, settings.DatabasePoolMode());
    if (!conn.ok()) return Fail(conn.status());
    if (settings.migrate == "check") {
      if (Status s = migrate::CheckCurrent(**conn); !s.ok()) return Fail(s);
    } else {
      // Another host may be migrating: tell systemd that startup is still
      // alive while the lock is awaited, and say so once.
      supervisor::Notifier notifier;
      bool said = false;
      auto waiting = [&](double waited) {
        notifier.ExtendTimeout(kStartupExtendSecs);
        if (said) return;
        said = true;
        obs::Info("migrate", "waiting for another runner's migrations")
            .Num("waited_s", waited)
            .Emit();
      };
      Result<std::vector<std::string>> applied =
          migrate::Migrate(**conn, migrate::EmbeddedMigrations(),
                           options::MigrateOptionsFor(false, waiting));
      if (!applied.ok()) {
        return Fail(applied.status().WithContext("migrations"));
      }
    }
    WarnOfNewerSchema(**conn);
  }

  // Step 4: the object store. Each worker opens its own; opening it here
  // first turns what only the store can tell (no store marker, bad
  // credentials, a missing bucket, an unwritable directory) into a startup
  // error.
  if (Status s = CheckStore(modules->store_url, modules->s3,
                            "object store (AWC_CAS_URL)");
      !s.ok()) {
    return Fail(s);
  }
  if (modules->repair_url) {
    Status s = CheckStore(*modules->repair_url, modules->repair_s3,
                          "repair store (AWC_CAS_REPAIR_URL)");
    if (!s.ok()) return Fail(s);
  }

  // Step 5: handlers.
  handlers::Registry registry;
  register_handlers(registry);
  // A kind this build lacks may be a later release's, run by its workers.
  registry.SetOtherBuilds(
      [](handlers::JobContext& ctx, const std::string& kind) {
        return fleet::BuildsHandling(ctx.db(), kind);
      });

  // Step 6: the supervisor and its workers.
  Result<obs::Metrics> metrics = obs::Metrics::CreateShared();
  if (!metrics.ok()) return Fail(metrics.status());
  DeclareClosedLabelSets(*metrics);
  // Room for the most workers one configuration may ask for, twice: after
  // a reload the old workers finish their jobs beside the new ones.
  Result<obs::WorkerStatusTable> status = obs::WorkerStatusTable::CreateShared(
      static_cast<int>(2 * config::kMaxWorkerConcurrency));
  if (!status.ok()) return Fail(status.status());
  // The host's maintenance read budget, one for every generation: its
  // rates come with each generation's settings.
  Result<process::IoBudget> read_budget = process::IoBudget::CreateShared();
  if (!read_budget.ok()) return Fail(read_budget.status());

  Shared shared{&registry, &*metrics, &*status, &*read_budget};
  status->SetBackgroundLimit(options::BackgroundPlaces((*prepared)->settings));
  supervisor::Supervisor::Generation first = MakeGeneration(*prepared, shared);
  supervisor::Supervisor sup(first.options, &*metrics, &*status,
                             std::move(first.worker_main),
                             std::move(first.others));
  sup.SetReload(Reloader(args.config_path, *prepared, shared));
  if (Status s = sup.Start(); !s.ok()) return Fail(s);
  return sup.Run();
}

}  // namespace awc::daemon
