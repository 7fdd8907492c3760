#include "cli/schedules_cmd.h"

#include <cstdio>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/redact.h"
#include "scheduler/schedule_admin.h"

namespace awc::cli {

const char* const kSchedulesUsage =
    "  schedules [list]                 list the schedules and the leading\n"
    "                                   scheduler\n"
    "  schedules pause|resume|run|remove NAME\n"
    "  schedules set NAME SPEC          SPEC: @every 1h30m, @hourly, @daily,\n"
    "                                   @weekly\n"
    "  schedules add NAME SPEC KIND JSON\n"
    "                                   enqueue one KIND job per firing\n";

namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

int Usage(const std::string& problem) {
  fprintf(stderr, "awcctl: %s\nusage:\n%s", problem.c_str(), kSchedulesUsage);
  return kUsageError;
}

int Fail(const Status& s) {
  fprintf(stderr, "awcctl: %s\n", Scrub(s.message()).c_str());
  return kRuntimeError;
}

// One cell of the RESULT column from a last_result object.
std::string Summary(const std::string& json) {
  if (json.empty()) return "-";
  Result<JsonPtr> doc = ParseJson(json);
  if (!doc.ok() || !json_is_object(doc->get())) return json.substr(0, 60);
  auto integer = [&](const char* key) -> std::string {
    json_t* v = json_object_get(doc->get(), key);
    return json_is_integer(v) ? std::to_string(json_integer_value(v)) : "?";
  };
  json_t* result = json_object_get(doc->get(), "result");
  std::string text = json_is_string(result) ? json_string_value(result) : "?";
  if (text == "error") {
    json_t* error = json_object_get(doc->get(), "error");
    std::string why = json_is_string(error) ? json_string_value(error) : "";
    return "error: " + why.substr(0, 60);
  }
  if (json_object_get(doc->get(), "jobs") != nullptr) {
    return text + ", pruned " + integer("jobs") + " jobs, " +
           integer("dead_letters") + " dead letters, " +
           integer("audit_events") + " audit events, " +
           integer("gc_candidates") + " gc candidates";
  }
  return text + ", " + integer("enqueued") + " of " + integer("due") +
         " enqueued";
}

int List(db::PgConn& conn) {
  Result<std::vector<scheduler::ScheduleRow>> rows =
      scheduler::ListSchedules(conn);
  if (!rows.ok()) return Fail(rows.status());
  Result<std::optional<scheduler::LeaseRow>> leader =
      scheduler::SchedulerLeader(conn);
  if (!leader.ok()) return Fail(leader.status());
  printf("%-12s %-14s %-18s %-6s %-20s %-20s %s\n", "NAME", "SPEC", "KIND",
         "PAUSED", "NEXT_RUN", "LAST_RUN", "LAST_RESULT");
  for (const scheduler::ScheduleRow& r : *rows) {
    std::string kind = r.kind.empty() ? "-" : r.kind;
    printf("%-12s %-14s %-18s %-6s %-20s %-20s %s\n", r.name.c_str(),
           r.spec.c_str(), kind.c_str(), r.paused ? "yes" : "no",
           r.next_run_at.c_str(),
           r.last_run_at.empty() ? "-" : r.last_run_at.c_str(),
           Scrub(Summary(r.last_result)).c_str());
  }
  if (!*leader) {
    printf("leader: none yet\n");
  } else if ((*leader)->expired) {
    printf("leader: none (the lease of %s expired at %s)\n",
           (*leader)->holder.c_str(), (*leader)->expires_at.c_str());
  } else {
    printf("leader: %s (token %lld, lease until %s)\n",
           (*leader)->holder.c_str(), static_cast<long long>((*leader)->token),
           (*leader)->expires_at.c_str());
  }
  return 0;
}

}  // namespace

int SchedulesMain(
    int argc, char** argv,
    const std::function<Result<std::unique_ptr<db::PgConn>>()>& connect) {
  std::string verb = argc > 1 ? argv[1] : "list";
  std::vector<std::string> args(argv + (argc > 1 ? 2 : 1), argv + argc);
  struct Verb {
    const char* name;
    size_t arity;
  };
  const Verb kVerbs[] = {{"list", 0},   {"pause", 1}, {"resume", 1}, {"run", 1},
                         {"remove", 1}, {"set", 2},   {"add", 4}};
  const Verb* found = nullptr;
  for (const Verb& v : kVerbs) {
    if (verb == v.name) found = &v;
  }
  if (found == nullptr) {
    return Usage("schedules: unknown verb \"" + verb + "\"");
  }
  if (args.size() != found->arity) {
    return Usage("schedules " + verb + " takes " +
                 std::to_string(found->arity) + " argument" +
                 (found->arity == 1 ? "" : "s"));
  }
  Result<std::unique_ptr<db::PgConn>> conn = connect();
  if (!conn.ok()) return Fail(conn.status());
  db::PgConn& db = **conn;
  if (verb == "list") return List(db);
  const std::string& name = args[0];
  Status s;
  std::string done;
  if (verb == "pause" || verb == "resume") {
    s = scheduler::PauseSchedule(db, name, verb == "pause");
    done = verb == "pause" ? "paused" : "resumed";
  } else if (verb == "run") {
    s = scheduler::RunScheduleNow(db, name);
    done = "due now";
  } else if (verb == "remove") {
    s = scheduler::RemoveSchedule(db, name);
    done = "removed";
  } else if (verb == "set") {
    s = scheduler::SetScheduleSpec(db, name, args[1]);
    done = "set to " + args[1];
  } else {
    s = scheduler::AddSchedule(db, name, args[1], args[2], args[3]);
    done = "added";
  }
  if (!s.ok()) return Fail(s);
  printf("schedule %s %s\n", name.c_str(), done.c_str());
  return 0;
}

}  // namespace awc::cli
