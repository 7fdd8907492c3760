// awcctl schedules list|pause|resume|run|set|add|remove: the schedules and
// the scheduler's leader (awcctl(1), "schedules"; scheduler/schedule_admin.h).
#include <functional>
#include <set>

#include "cli/invocation.h"
#include "cli/job_check.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "queue/kind_settings.h"
#include "scheduler/schedule_admin.h"
#include "scheduler/schedules.h"
#include "scheduler/spec.h"

namespace awc::cli {
namespace {

Cell TextOrNone(const std::string& s) {
  return s.empty() ? Cell::None() : Cell::Text(s);
}

// One schedule as --json prints it: payload and last_result as JSON values;
// kind_paused when its kind is paused (awcctl kinds), whose firings still
// enqueue jobs that wait PENDING.
JsonPtr ScheduleJson(const scheduler::ScheduleRow& r, bool kind_paused) {
  JsonPtr o(json_object());
  json_object_set_new(o.get(), "name", JsonText(r.name).release());
  json_object_set_new(o.get(), "spec", JsonText(r.spec).release());
  json_object_set_new(
      o.get(), "kind",
      r.kind.empty() ? json_null() : JsonText(r.kind).release());
  Result<JsonPtr> payload = ParseJson(r.payload);
  json_object_set_new(o.get(), "payload",
                      payload.ok() ? payload->release() : json_null());
  json_object_set_new(o.get(), "builtin", json_boolean(r.builtin));
  json_object_set_new(o.get(), "paused", json_boolean(r.paused));
  json_object_set_new(o.get(), "kind_paused", json_boolean(kind_paused));
  json_object_set_new(o.get(), "next_run_at",
                      TextOrNone(r.next_run_at).Json().release());
  json_object_set_new(
      o.get(), "invalid",
      r.unusable_next_run.empty()
          ? json_null()
          : JsonText(scheduler::UnusableNextRun(r.unusable_next_run))
                .release());
  json_object_set_new(o.get(), "clamp_to",
                      TextOrNone(r.clamp_to).Json().release());
  json_object_set_new(o.get(), "last_run_at",
                      TextOrNone(r.last_run_at).Json().release());
  Result<JsonPtr> last = ParseJson(r.last_result);
  json_object_set_new(
      o.get(), "last_result",
      !r.last_result.empty() && last.ok() ? last->release() : json_null());
  json_object_set_new(o.get(), "runs", json_integer(r.runs));
  return o;
}

// Whether the lease's expiry lies more than one lease length ahead (set so
// by SQL), which a standby cuts (docs/scheduler.md, "Clamps"); the length
// is AWC_SCHEDULER_LEASE_SECS as awcctl reads the settings.
bool BeyondLease(const scheduler::LeaseRow& leader, int64_t lease_secs) {
  return !leader.expired && leader.ahead_secs > static_cast<double>(lease_secs);
}

std::string LeaderLine(const std::optional<scheduler::LeaseRow>& leader,
                       int64_t lease_secs) {
  if (!leader) return "leader: none yet\n";
  if (leader->expired) {
    return "leader: none (the lease of " + OneLine(leader->holder) +
           " expired at " + OneLine(leader->expires_at) + ")\n";
  }
  std::string beyond = BeyondLease(*leader, lease_secs)
                           ? "; more than a lease length (" +
                                 std::to_string(lease_secs) +
                                 " s) ahead: a standby clamps it"
                           : "";
  return "leader: " + OneLine(leader->holder) + " (token " +
         std::to_string(leader->token) + ", lease until " +
         OneLine(leader->expires_at) + beyond + ")\n";
}

JsonPtr LeaderJson(const std::optional<scheduler::LeaseRow>& leader,
                   int64_t lease_secs) {
  if (!leader) return JsonPtr(json_null());
  JsonPtr o(json_object());
  json_object_set_new(o.get(), "holder", JsonText(leader->holder).release());
  json_object_set_new(o.get(), "token", json_integer(leader->token));
  json_object_set_new(o.get(), "expires_at",
                      JsonText(leader->expires_at).release());
  json_object_set_new(o.get(), "expired", json_boolean(leader->expired));
  json_object_set_new(o.get(), "beyond_lease",
                      json_boolean(BeyondLease(*leader, lease_secs)));
  return o;
}

// The kinds paused now (docs/queue.md, "Pausing a kind").
Result<std::set<std::string>> PausedKindNames(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(std::vector<queue::PausedKind> paused,
                       queue::PausedKinds(conn));
  std::set<std::string> out;
  for (const queue::PausedKind& p : paused) out.insert(p.kind);
  return out;
}

int RunList(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<scheduler::ScheduleRow>> rows =
      scheduler::ListSchedules(**conn);
  if (!rows.ok()) return inv.Fail(rows.status());
  Result<std::set<std::string>> paused_kinds = PausedKindNames(**conn);
  if (!paused_kinds.ok()) return inv.Fail(paused_kinds.status());
  auto kind_paused = [&](const scheduler::ScheduleRow& r) {
    return !r.kind.empty() && paused_kinds->contains(r.kind);
  };
  Result<std::optional<scheduler::LeaseRow>> leader =
      scheduler::SchedulerLeader(**conn);
  if (!leader.ok()) return inv.Fail(leader.status());
  Result<const config::Settings*> settings = inv.Settings();
  if (!settings.ok()) return inv.Fail(settings.status());
  int64_t lease_secs = (*settings)->scheduler_lease_secs;
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_t* arr = json_array();
    for (const scheduler::ScheduleRow& r : *rows) {
      json_array_append_new(arr, ScheduleJson(r, kind_paused(r)).release());
    }
    json_object_set_new(doc.get(), "schedules", arr);
    json_object_set_new(doc.get(), "leader",
                        LeaderJson(*leader, lease_secs).release());
    inv.Print(doc);
    return kExitOk;
  }
  Table t({{"NAME", "name"},
           {"SPEC", "spec"},
           {"KIND", "kind"},
           {"PAUSED", "paused"},
           {"NEXT_RUN", "next_run_at"},
           {"LAST_RUN", "last_run_at"},
           {"RUNS", "runs"},
           {"LAST_RESULT", "last_result"}});
  for (const scheduler::ScheduleRow& r : *rows) {
    t.Add(
        {Cell::Text(r.name), Cell::Text(r.spec),
         kind_paused(r) ? Cell::Text(r.kind + " (paused)") : TextOrNone(r.kind),
         Cell::Bool(r.paused),
         !r.unusable_next_run.empty()
             ? Cell::Text("invalid (" + r.unusable_next_run + ")")
         : !r.clamp_to.empty()
             ? Cell::Text(r.next_run_at +
                          " (more than a period ahead: clamped to " +
                          r.clamp_to + ")")
             : TextOrNone(r.next_run_at),
         TextOrNone(r.last_run_at), Cell::Int(r.runs),
         r.last_result.empty()
             ? Cell::None()
             : Cell::Text(scheduler::RunSummary(r.last_result))});
  }
  inv.Print(t.Text() + LeaderLine(*leader, lease_secs));
  return kExitOk;
}

// A change of the schedule NAME (the first argument, checked here before
// anything connects): `change` makes it, `done` says what it did
// ("paused"). Prints "schedule NAME <done>", or with --json the schedule
// as it is now ({"removed": NAME} once it is gone).
int RunChange(Invocation& inv, const std::string& done,
              const std::function<Status(db::PgConn&)>& change) {
  const std::string& name = inv.args().positional[0];
  if (Status s = scheduler::CheckScheduleName(name); !s.ok()) {
    return inv.Usage(s.message());
  }
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  if (Status s = change(**conn); !s.ok()) return inv.Fail(s);
  if (!inv.json()) {
    inv.Print("schedule " + OneLine(name) + " " + OneLine(done) + "\n");
    return kExitOk;
  }
  JsonPtr doc(json_object());
  if (done == "removed") {
    json_object_set_new(doc.get(), "removed", JsonText(name).release());
    inv.Print(doc);
    return kExitOk;
  }
  Result<std::vector<scheduler::ScheduleRow>> rows =
      scheduler::ListSchedules(**conn);
  if (!rows.ok()) return inv.Fail(rows.status());
  Result<std::set<std::string>> paused_kinds = PausedKindNames(**conn);
  if (!paused_kinds.ok()) return inv.Fail(paused_kinds.status());
  for (const scheduler::ScheduleRow& r : *rows) {
    if (r.name == name) {
      json_object_set_new(
          doc.get(), "schedule",
          ScheduleJson(r, !r.kind.empty() && paused_kinds->contains(r.kind))
              .release());
    }
  }
  inv.Print(doc);
  return kExitOk;
}

int RunPause(Invocation& inv) {
  return RunChange(inv, "paused", [&](db::PgConn& c) {
    return scheduler::PauseSchedule(c, inv.args().positional[0], true);
  });
}

int RunResume(Invocation& inv) {
  return RunChange(inv, "resumed", [&](db::PgConn& c) {
    return scheduler::PauseSchedule(c, inv.args().positional[0], false);
  });
}

int RunRunNow(Invocation& inv) {
  return RunChange(inv, "due now", [&](db::PgConn& c) {
    return scheduler::RunScheduleNow(c, inv.args().positional[0]);
  });
}

int RunSet(Invocation& inv) {
  const std::vector<std::string>& p = inv.args().positional;
  if (Status s = scheduler::CheckScheduleName(p[0]); !s.ok()) {
    return inv.Usage(s.message());
  }
  if (Status s = scheduler::ParseSpec(p[1]).status(); !s.ok()) {
    return inv.Usage(s.message());
  }
  return RunChange(inv, "set to " + p[1], [&](db::PgConn& c) {
    return scheduler::SetScheduleSpec(c, p[0], p[1]);
  });
}

int RunAdd(Invocation& inv) {
  const std::vector<std::string>& p = inv.args().positional;
  if (Status s = scheduler::CheckScheduleName(p[0]); !s.ok()) {
    return inv.Usage(s.message());
  }
  if (Status s = scheduler::ParseSpec(p[1]).status(); !s.ok()) {
    return inv.Usage(s.message());
  }
  if (Status s = CheckKind(p[2]); !s.ok()) return inv.Usage(s.message());
  Result<JsonPtr> payload = ParseJson(p[3]);
  if (!payload.ok() || !json_is_object(payload->get())) {
    return inv.Usage("JSON must be a JSON object");
  }
  if (!inv.args().Has("force")) {
    if (Status s = CheckJob(p[2], p[3]); !s.ok()) {
      return inv.Usage(s.message() + "; --force adds it anyway");
    }
  }
  return RunChange(inv, "added", [&](db::PgConn& c) {
    return scheduler::AddSchedule(c, p[0], p[1], p[2], p[3]);
  });
}

int RunRemove(Invocation& inv) {
  return RunChange(inv, "removed", [&](db::PgConn& c) {
    return scheduler::RemoveSchedule(c, inv.args().positional[0]);
  });
}

constexpr const char* kSetHelp =
    "Its next run is the first instant of SPEC after now.\n"
    "SPEC is \"@every 1h30m\" (hours, minutes, seconds, each optional, in\n"
    "that order; from 1 s to 366 days), @hourly, @daily (00:00 UTC) or\n"
    "@weekly (Sunday 00:00 UTC). Intervals count from 1970-01-01 00:00\n"
    "UTC: @every 6h fires at 00:00, 06:00, 12:00 and 18:00 UTC.\n";

// A verb that changes NAME and takes `args` more arguments.
Command ChangeVerb(const char* name, const char* args, const char* summary,
                   const char* help, int arity, int (*run)(Invocation&)) {
  Command c{name, args, summary, help, {}};
  c.min_args = c.max_args = arity;
  c.json = true;
  c.changes = true;
  c.run = run;
  return c;
}

}  // namespace

void AddSchedulesCommands(std::vector<Command>* out) {
  Command list{
      "schedules list",
      "[--json]",
      "list the schedules and the scheduler that leads",
      "Name, spec, the kind of job each firing enqueues (\"(paused)\" when\n"
      "the kind is paused: awcctl kinds; its firings still enqueue, and\n"
      "the jobs wait PENDING until the kind is resumed), whether it is\n"
      "paused, its next and last run, how many runs and what the last\n"
      "one did; then which scheduler holds the leader lease, and until\n"
      "when. A next run the scheduler cannot fire at (an infinity set\n"
      "by SQL) is shown as \"invalid (...)\"; one more than a period of\n"
      "its spec ahead, or a lease more than AWC_SCHEDULER_LEASE_SECS\n"
      "ahead (set so by SQL), is marked with where the scheduler clamps\n"
      "it. The built-in schedules (gc, expire, retain, scrub,\n"
      "validate, reconcile, prune) are created by the first scheduler that\n"
      "starts, or by this command. \"awcctl schedules\" is the same.\n",
      {}};
  list.json = true;
  list.bare = true;
  list.run = RunList;
  out->push_back(list);

  out->push_back(ChangeVerb(
      "schedules pause", "NAME [--yes] [--json]", "stop firing a schedule",
      "A built-in schedule cannot be removed, only paused.\n", 1, RunPause));
  out->push_back(ChangeVerb("schedules resume", "NAME [--yes] [--json]",
                            "fire a paused schedule again",
                            "A schedule resumed after its time fires once.\n",
                            1, RunResume));
  out->push_back(ChangeVerb(
      "schedules run", "NAME [--yes] [--json]", "make a schedule due now",
      "The leading scheduler fires it at once; its next run after that\n"
      "follows its spec. Refused while the schedule is paused.\n",
      1, RunRunNow));
  out->push_back(ChangeVerb("schedules set", "NAME SPEC [--yes] [--json]",
                            "change a schedule's spec", kSetHelp, 2, RunSet));
  Command add = ChangeVerb(
      "schedules add", "NAME SPEC KIND JSON [--force] [--yes] [--json]",
      "add a schedule that enqueues one KIND job per firing",
      "JSON is the jobs' payload, an object. While its last job is\n"
      "PENDING or RUNNING a firing enqueues no other. NAME is 1 to 63\n"
      "lowercase letters, digits, '_', '.' and '-', starting with a\n"
      "letter or digit. The first run is the first instant of SPEC\n"
      "after now. KIND must be a kind this awcctl knows and JSON a\n"
      "payload its decoder accepts; --force skips that check (for kinds\n"
      "of a newer awc-worker), not the limits of every job: KIND is 1 to\n"
      "128 bytes and JSON an object all the same.\n",
      4, RunAdd);
  add.options = {{"force", nullptr, "skip the kind and payload check"}};
  out->push_back(add);
  out->push_back(ChangeVerb("schedules remove", "NAME [--yes] [--json]",
                            "remove a schedule added with schedules add",
                            "Built-in schedules can only be paused.\n", 1,
                            RunRemove));
}

}  // namespace awc::cli
