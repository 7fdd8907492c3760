// awc-bench-scheduler: the in-process half of the scheduler benchmark
// (bench/scheduler_bench.py, make bench-scheduler; see bench/README.md,
// "Scheduler"). Built only with -DAWC_BUILD_BENCH=ON; never installed.
//
// Settings come from the environment exactly as the daemon reads them
// (DATABASE_URL, AWC_SCRUB_*, AWC_*_RETENTION_SECS, ...), and the
// scheduler's options are built from them as the daemon builds them. Every
// subcommand prints one JSON object on stdout (explain: the plan as text);
// errors go to stderr with exit status 1.
//
//   migrate
//       Applies the migrations and creates the built-in schedules.
//
//   plan --schedule NAME [--repeat N]
//       N times, each in a transaction that is rolled back: the schedule's
//       planner statement as the scheduler runs it (scheduler::RunPlanner,
//       unprepared); for prune, one batch of each of its four statements.
//       Prints the times in ms and what the statements found.
//
//   fire --schedule NAME
//       Makes the schedule due and fires it once for real, as the leading
//       scheduler does (scheduler::FireSchedule under a leader lease taken
//       for the purpose): fence, row lock, planner (prune: every batch),
//       record, commit. Prints the time and the run's report.
//
//   explain --schedule NAME
//       EXPLAIN (ANALYZE, BUFFERS) of the planner statement (prune: of its
//       job batch), in a transaction that is rolled back.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/json.h"
#include "common/status.h"
#include "config/config.h"
#include "db/pg.h"
#include "migrate/migrator.h"
#include "obs/log.h"
#include "options/module_options.h"
#include "scheduler/firing.h"
#include "scheduler/leader_lease.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/planners.h"
#include "scheduler/scheduler_sql.h"
#include "scheduler/schedules.h"

namespace {

using awc::Result;
using awc::Status;
namespace scheduler = awc::scheduler;

[[noreturn]] void Die(const std::string& msg) {
  fprintf(stderr, "awc-bench-scheduler: %s\n", msg.c_str());
  exit(1);
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.message());
}

double NowMs() { return awc::Env::Default()->NowMonotonic() * 1000.0; }

std::string Opt(int argc, char** argv, const std::string& name,
                const char* def = nullptr) {
  for (int i = 2; i + 1 < argc; ++i) {
    if (argv[i] == "--" + name) return argv[i + 1];
  }
  if (def == nullptr) Die("--" + name + " is required");
  return def;
}

struct Context {
  awc::config::Settings settings;
  scheduler::SchedulerOptions options;
  std::unique_ptr<awc::db::PgConn> conn;
};

Context Open() {
  Result<awc::config::Config> cfg =
      awc::config::Config::Load("", awc::config::ProcessEnv());
  if (!cfg.ok()) Die(cfg.status().message());
  Context c;
  c.settings = cfg->settings();
  if (c.settings.database_url.empty()) Die("DATABASE_URL is not set");
  c.options = awc::options::SchedulerOptionsFrom(c.settings);
  Result<std::unique_ptr<awc::db::PgConn>> conn =
      awc::db::PgConn::Connect(c.settings.database_url, "awc-bench-scheduler");
  if (!conn.ok()) Die(conn.status().message());
  c.conn = std::move(*conn);
  return c;
}

void Exec(awc::db::PgConn& conn, const char* sql) {
  Check(conn.Exec(sql).status(), sql);
}

// The statements of one prune batch, by part, with their retention.
std::vector<std::pair<const char*, std::pair<const char*, int64_t>>> PruneParts(
    const scheduler::SchedulerOptions& o) {
  return {
      {"jobs", {scheduler::sql::kPruneJobs, o.job_retention_secs}},
      {"dead_letters",
       {scheduler::sql::kPruneDeadLetters, o.dead_letter_retention_secs}},
      {"audit_events", {scheduler::sql::kPruneAudit, o.audit_retention_secs}},
      {"gc_candidates",
       {scheduler::sql::kPruneGcCandidates, o.job_retention_secs}},
  };
}

awc::db::Params BatchParams(int64_t retention) {
  return {std::to_string(retention), std::to_string(scheduler::kPruneBatch)};
}

int Plan(const std::string& name, int repeat) {
  Context c = Open();
  awc::JsonObject out;
  out.Str("schedule", name);
  if (name == scheduler::kPrune) {
    for (const auto& [part, stmt] : PruneParts(c.options)) {
      std::vector<std::string> ms;
      int64_t rows = 0;
      for (int i = 0; i < repeat; ++i) {
        Exec(*c.conn, "BEGIN");
        double t0 = NowMs();
        Result<awc::db::PgResult> r =
            c.conn->Exec(stmt.first, BatchParams(stmt.second));
        double t1 = NowMs();
        Check(r.status(), part);
        rows = r->Affected();
        Exec(*c.conn, "ROLLBACK");
        ms.push_back(std::to_string(t1 - t0));
      }
      awc::JsonObject p;
      p.Int("rows", rows).Strs("ms", ms);
      out.Obj(part, p);
    }
  } else {
    std::vector<std::string> ms;
    scheduler::PlanResult last;
    for (int i = 0; i < repeat; ++i) {
      Exec(*c.conn, "BEGIN");
      double t0 = NowMs();
      Result<scheduler::PlanResult> r =
          scheduler::RunPlanner(*c.conn, name, c.options);
      double t1 = NowMs();
      Check(r.status(), name.c_str());
      last = *r;
      Exec(*c.conn, "ROLLBACK");
      ms.push_back(std::to_string(t1 - t0));
    }
    out.Int("due", last.due).Int("enqueued", last.enqueued).Strs("ms", ms);
  }
  printf("%s\n", out.Dump().c_str());
  return 0;
}

int Fire(const std::string& name) {
  Context c = Open();
  scheduler::LeaderLease lease(c.conn.get(), scheduler::sql::kSchedulerLease,
                               "awc-bench-scheduler", 300);
  Result<bool> got = lease.Acquire();
  Check(got.status(), "acquire");
  if (!*got) Die("the scheduler lease is held by someone else");
  Check(c.conn
            ->Exec("UPDATE awc.schedules SET next_run_at = now() WHERE name = "
                   "$1",
                   {name})
            .status(),
        "make due");
  double t0 = NowMs();
  Result<std::optional<scheduler::RunReport>> run = scheduler::FireSchedule(
      *c.conn, lease, scheduler::DueSchedule{name, true}, c.options,
      [] { return Result<bool>(true); }, awc::Env::Default());
  double t1 = NowMs();
  Check(run.status(), "fire");
  if (!*run) Die("the schedule was not due");
  Check(lease.Release(), "release");
  awc::JsonObject out;
  out.Str("schedule", name).Num("ms", t1 - t0);
  std::string text = out.Dump();
  text.pop_back();  // the report joins the object
  printf("%s,\"report\":%s}\n", text.c_str(), (*run)->ResultJson().c_str());
  return 0;
}

int Explain(const std::string& name) {
  Context c = Open();
  std::string sql;
  awc::db::Params params;
  if (name == scheduler::kPrune) {
    sql = scheduler::sql::kPruneJobs;
    params = BatchParams(c.options.job_retention_secs);
  } else {
    Result<const char*> stmt = scheduler::PlannerStatement(name);
    Check(stmt.status(), "planner");
    sql = *stmt;
    std::string limit = std::to_string(scheduler::kMaxJobsPerRun);
    if (name == "expire") {
      params = {std::to_string(c.options.retention_grace_secs), limit};
    } else if (name == "retain") {
      params = {limit};
    } else if (name == "scrub") {
      params = {std::to_string(c.options.scrub_interval_secs),
                std::to_string(c.options.scrub_max_per_run)};
    } else if (name == "validate") {
      params = {std::to_string(scheduler::kValidateMinAgeSecs), limit};
    }
  }
  Exec(*c.conn, "BEGIN");
  Result<awc::db::PgResult> r =
      c.conn->Exec("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, params);
  Check(r.status(), "explain");
  for (int i = 0; i < r->rows(); ++i)
    printf("%s\n", r->GetString(i, 0).c_str());
  Exec(*c.conn, "ROLLBACK");
  return 0;
}

int Migrate() {
  Context c = Open();
  Result<std::vector<std::string>> applied = awc::migrate::Migrate(*c.conn);
  Check(applied.status(), "migrate");
  Check(scheduler::EnsureBuiltins(*c.conn), "built-in schedules");
  printf("{\"applied\": %zu}\n", applied->size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  awc::obs::SetLogLevel(awc::obs::LogLevel::kWarn);
  if (argc < 2) {
    Die("usage: awc-bench-scheduler migrate | plan | fire | explain "
        "--schedule NAME [--repeat N]");
  }
  std::string cmd = argv[1];
  if (cmd == "migrate") return Migrate();
  std::string name = Opt(argc, argv, "schedule");
  if (!scheduler::IsBuiltinPlanner(name)) Die("no built-in schedule " + name);
  if (cmd == "plan")
    return Plan(name, atoi(Opt(argc, argv, "repeat", "5").c_str()));
  if (cmd == "fire") return Fire(name);
  if (cmd == "explain") return Explain(name);
  Die("unknown subcommand " + cmd);
}
