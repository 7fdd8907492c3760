// awcctl kinds list|pause|resume|priority|limit: job kinds, pausing one to
// contain a poison job, their priorities and concurrency limits
// (awcctl(1), "kinds"; docs/queue.md, "Pausing a kind", "Priorities" and
// "Concurrency limits").
#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "cli/invocation.h"
#include "cli/job_check.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/host_name.h"
#include "common/numbers.h"
#include "fleet/workers.h"
#include "handlers/registry.h"
#include "queue/kind_settings.h"

namespace awc::cli {
namespace {

Cell TextOrNone(const std::string& s) {
  return s.empty() ? Cell::None() : Cell::Text(s);
}

// The migration that brought concurrency limits.
constexpr int kFirstVersionWithLimits = 23;

Cell IntOrNone(std::optional<int> n) {
  return n ? Cell::Int(*n) : Cell::None();
}

// A pause as --json prints it; null when not paused.
JsonPtr PauseJson(const std::optional<queue::PausedKind>& p) {
  if (!p) return JsonPtr(json_null());
  JsonPtr o(json_object());
  json_object_set_new(o.get(), "paused_at", JsonText(p->paused_at).release());
  json_object_set_new(o.get(), "paused_by",
                      TextOrNone(p->paused_by).Json().release());
  json_object_set_new(o.get(), "reason",
                      TextOrNone(p->reason).Json().release());
  return o;
}

// Whether the host's background places limit `kind` (docs/queue.md,
// "Background work").
bool IsBackground(const std::string& kind) {
  static const std::vector<std::string> background =
      handlers::BackgroundKinds();
  return std::find(background.begin(), background.end(), kind) !=
         background.end();
}

int RunList(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  std::span<const std::string_view> builtin = handlers::BuiltinKinds();
  Result<std::vector<queue::KindStatus>> rows = queue::ListKinds(
      **conn, std::vector<std::string_view>(builtin.begin(), builtin.end()));
  if (!rows.ok()) return inv.Fail(rows.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_t* arr = json_array();
    for (const queue::KindStatus& k : *rows) {
      JsonPtr o(json_object());
      json_object_set_new(o.get(), "kind", JsonText(k.kind).release());
      json_object_set_new(o.get(), "builtin", json_boolean(k.builtin));
      json_object_set_new(o.get(), "background",
                          json_boolean(IsBackground(k.kind)));
      json_object_set_new(o.get(), "priority", json_integer(k.priority));
      json_object_set_new(o.get(), "host_limit",
                          IntOrNone(k.host_limit).Json().release());
      json_object_set_new(o.get(), "fleet_limit",
                          IntOrNone(k.fleet_limit).Json().release());
      json_object_set_new(o.get(), "paused", json_boolean(k.pause.has_value()));
      json_object_set_new(o.get(), "pause", PauseJson(k.pause).release());
      json_object_set_new(o.get(), "pending", json_integer(k.pending));
      json_object_set_new(o.get(), "running", json_integer(k.running));
      json_array_append_new(arr, o.release());
    }
    json_object_set_new(doc.get(), "kinds", arr);
    inv.Print(doc);
    return kExitOk;
  }
  Table t({{"KIND", "kind"},
           {"BUILTIN", "builtin"},
           {"BACKGROUND", "background"},
           {"PRIORITY", "priority"},
           {"HOST_LIMIT", "host_limit"},
           {"FLEET_LIMIT", "fleet_limit"},
           {"PAUSED", "paused"},
           {"PAUSED_AT", "paused_at"},
           {"PAUSED_BY", "paused_by"},
           {"REASON", "reason"},
           {"PENDING", "pending"},
           {"RUNNING", "running"}});
  for (const queue::KindStatus& k : *rows) {
    const bool paused = k.pause.has_value();
    t.Add({Cell::Text(k.kind), Cell::Bool(k.builtin),
           Cell::Bool(IsBackground(k.kind)), Cell::Int(k.priority),
           IntOrNone(k.host_limit), IntOrNone(k.fleet_limit),
           Cell::Bool(paused),
           paused ? Cell::Text(k.pause->paused_at) : Cell::None(),
           paused ? TextOrNone(k.pause->paused_by) : Cell::None(),
           paused ? TextOrNone(k.pause->reason) : Cell::None(),
           Cell::Int(k.pending), Cell::Int(k.running)});
  }
  inv.Print(t.Text());
  return kExitOk;
}

bool IsBuiltin(const std::string& kind) {
  for (std::string_view k : handlers::BuiltinKinds()) {
    if (k == kind) return true;
  }
  return false;
}

// Who pauses: the login name of this process and its host; the database
// keeps its own role when the environment names nobody.
std::string PausedBy() {
  for (const char* name : {"USER", "LOGNAME"}) {
    const char* v = getenv(name);
    if (v != nullptr && *v != '\0') return std::string(v) + "@" + HostName();
  }
  return "";
}

// "kind K paused since T by B (reason)" for `what` "paused since"; the
// stored text one line, as kinds list shows it.
std::string PauseLine(const std::string& kind, const std::string& what,
                      const queue::PausedKind& p) {
  std::string line =
      "kind " + OneLine(kind) + " " + what + " " + OneLine(p.paused_at);
  if (!p.paused_by.empty()) line += " by " + OneLine(p.paused_by);
  if (!p.reason.empty()) line += " (" + OneLine(p.reason) + ")";
  return line + "\n";
}

int PrintChange(Invocation& inv, const std::string& kind, bool pause,
                const queue::KindChange& c) {
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "kind", JsonText(kind).release());
    json_object_set_new(doc.get(), "changed", json_boolean(c.changed));
    json_object_set_new(doc.get(), "paused", json_boolean(pause));
    json_object_set_new(doc.get(), "pause",
                        PauseJson(pause ? c.pause : std::nullopt).release());
    inv.Print(doc);
    return kExitOk;
  }
  if (pause) {
    inv.Print(c.changed ? PauseLine(kind, "paused at", *c.pause)
              : c.pause ? PauseLine(kind, "was already paused since", *c.pause)
                        : "kind " + OneLine(kind) + " paused\n");
  } else {
    inv.Print(c.changed ? "kind " + OneLine(kind) + " resumed\n"
                        : "kind " + OneLine(kind) + " was not paused\n");
  }
  return kExitOk;
}

// Connects for a change to `kind`, which must be built in or have a job
// in awc.jobs unless --force (a kind of a newer awc-worker, before its
// first job); `forced` says what --force does. nullptr once the problem
// is reported, its exit code in *code.
db::PgConn* ConnectToChange(Invocation& inv, const std::string& kind,
                            const char* forced, int* code) {
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) {
    *code = inv.Fail(conn.status());
    return nullptr;
  }
  if (inv.args().Has("force") || IsBuiltin(kind)) return *conn;
  Result<bool> has_jobs = queue::KindHasJobs(**conn, kind);
  if (!has_jobs.ok()) {
    *code = inv.Fail(has_jobs.status());
    return nullptr;
  }
  if (*has_jobs) return *conn;
  *code = inv.Usage("unknown job kind \"" + kind +
                    "\": not built in and no job of it in awc.jobs; "
                    "--force " + forced + " anyway");
  return nullptr;
}

int RunPause(Invocation& inv) {
  const std::string& kind = inv.args().positional[0];
  if (Status s = CheckKind(kind); !s.ok()) return inv.Usage(s.message());
  std::string reason = inv.args().Has("reason") ? inv.args().Get("reason") : "";
  int code = kExitOk;
  db::PgConn* conn = ConnectToChange(inv, kind, "pauses it", &code);
  if (conn == nullptr) return code;
  Result<queue::KindChange> c =
      queue::PauseKind(*conn, kind, PausedBy(), reason);
  if (!c.ok()) return inv.Fail(c.status());
  return PrintChange(inv, kind, true, *c);
}

int RunResume(Invocation& inv) {
  const std::string& kind = inv.args().positional[0];
  if (Status s = CheckKind(kind); !s.ok()) return inv.Usage(s.message());
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<queue::KindChange> c = queue::ResumeKind(**conn, kind);
  if (!c.ok()) return inv.Fail(c.status());
  return PrintChange(inv, kind, false, *c);
}

int RunPriority(Invocation& inv) {
  const std::string& kind = inv.args().positional[0];
  if (Status s = CheckKind(kind); !s.ok()) return inv.Usage(s.message());
  const std::string& text = inv.args().positional[1];
  Result<int64_t> priority = ParseInt64(text);
  if (!priority.ok() || *priority < 0 || *priority >= queue::kPriorityCount) {
    return inv.Usage("PRIORITY must be a whole number from 0 (the most "
                     "urgent) to 9, not \"" +
                     OneLine(text) + "\"");
  }
  int code = kExitOk;
  db::PgConn* conn = ConnectToChange(inv, kind, "sets its priority", &code);
  if (conn == nullptr) return code;
  Result<queue::PriorityChange> c = queue::SetKindPriority(
      *conn, kind, static_cast<int>(*priority), PausedBy());
  if (!c.ok()) return inv.Fail(c.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "kind", JsonText(kind).release());
    json_object_set_new(doc.get(), "priority", json_integer(*priority));
    json_object_set_new(doc.get(), "was", json_integer(c->was));
    json_object_set_new(doc.get(), "moved", json_integer(c->moved));
    inv.Print(doc);
    return kExitOk;
  }
  inv.Print("kind " + OneLine(kind) + " priority " + std::to_string(*priority) +
            " (was " + std::to_string(c->was) + "; " +
            std::to_string(c->moved) + " pending job" +
            (c->moved == 1 ? "" : "s") + " moved)\n");
  return kExitOk;
}

// --host or --fleet: a limit of at least 1, or "none".
Status ParseLimit(const ParsedArgs& a, const char* option, bool* set,
                  std::optional<int>* value) {
  if (!a.Has(option)) return Status::OK();
  *set = true;
  const std::string text = a.Get(option);
  if (text == "none") return Status::OK();
  Result<int64_t> n = ParseCount(text, std::string("--") + option, 1, 1000000);
  if (!n.ok()) return Status::InvalidArgument(n.status().message() + " or none");
  *value = static_cast<int>(*n);
  return Status::OK();
}

std::string LimitText(std::optional<int> n) {
  return n ? std::to_string(*n) : "none";
}

// Hosts whose live workers run a build from before the limits (migration
// 0023) claim without them: said on stderr, naming them, so that the
// operator knows the limit holds only once they are upgraded.
void WarnOfOlderBuilds(Invocation& inv, db::PgConn& conn) {
  Result<std::vector<fleet::WorkerRow>> live = fleet::LiveWorkers(conn);
  if (!live.ok()) return;  // the limit is set; this is advice
  std::set<std::string> hosts;
  for (const fleet::WorkerRow& w : *live) {
    if (w.schema_version < kFirstVersionWithLimits) {
      hosts.insert(OneLine(w.host) + " (" +
                   (w.build.empty() ? "an older build" : OneLine(w.build)) +
                   ")");
    }
  }
  if (hosts.empty()) return;
  std::string names;
  for (const std::string& h : hosts) names += (names.empty() ? "" : ", ") + h;
  inv.Note("warning: workers of " + names +
           " run a release that does not keep concurrency limits; the "
           "limit holds once they are upgraded");
}

int RunLimit(Invocation& inv) {
  const std::string& kind = inv.args().positional[0];
  if (Status s = CheckKind(kind); !s.ok()) return inv.Usage(s.message());
  queue::KindLimits change;
  for (Status s :
       {ParseLimit(inv.args(), "host", &change.set_host, &change.host),
        ParseLimit(inv.args(), "fleet", &change.set_fleet, &change.fleet)}) {
    if (!s.ok()) return inv.Usage(s.message());
  }
  if (!change.set_host && !change.set_fleet) {
    return inv.Usage("give --host, --fleet or both");
  }
  int code = kExitOk;
  db::PgConn* conn = ConnectToChange(inv, kind, "sets its limits", &code);
  if (conn == nullptr) return code;
  Result<queue::KindLimits> now =
      queue::SetKindLimits(*conn, kind, change, PausedBy());
  if (!now.ok()) return inv.Fail(now.status());
  WarnOfOlderBuilds(inv, *conn);
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "kind", JsonText(kind).release());
    json_object_set_new(doc.get(), "host_limit",
                        IntOrNone(now->host).Json().release());
    json_object_set_new(doc.get(), "fleet_limit",
                        IntOrNone(now->fleet).Json().release());
    inv.Print(doc);
    return kExitOk;
  }
  inv.Print("kind " + OneLine(kind) + " limits: " + LimitText(now->host) +
            " per host, " + LimitText(now->fleet) + " in the fleet\n");
  return kExitOk;
}

}  // namespace

void AddKindsCommands(std::vector<Command>* out) {
  Command list{
      "kinds list",
      "[--json]",
      "list the job kinds, their priorities, pauses and live jobs",
      "Every built-in kind, every paused kind, every kind given a\n"
      "priority and every kind with PENDING or RUNNING jobs: whether it\n"
      "is background work, the priority its jobs get, whether it is\n"
      "paused (since when, by whom, why) and its PENDING and RUNNING\n"
      "jobs. Kinds with finished jobs only are left out (awcctl stats\n"
      "counts them). \"awcctl kinds\" is the same.\n",
      {}};
  list.json = true;
  list.bare = true;
  list.run = RunList;
  out->push_back(list);

  Command pause{
      "kinds pause",
      "KIND [--reason TEXT] [--force] [--yes] [--json]",
      "stop claiming a kind's jobs (contain a poison job)",
      "No worker of any host claims a PENDING job of KIND from the next\n"
      "claim on; RUNNING jobs of it run to their end. Jobs of KIND are\n"
      "still enqueued, by producers and by the schedules, and wait\n"
      "PENDING until \"awcctl kinds resume KIND\". KIND must be a built-in\n"
      "kind or one with jobs in awc.jobs; --force pauses another (a kind\n"
      "of a newer awc-worker, before its first job). KIND is 1 to 128\n"
      "bytes all the same. Pausing a paused kind keeps its pause as it\n"
      "was and says so.\n",
      {{"reason", "TEXT", "why, kept with the pause"},
       {"force", nullptr, "pause a kind with no job and not built in"}}};
  pause.min_args = pause.max_args = 1;
  pause.json = true;
  pause.changes = true;
  pause.run = RunPause;
  out->push_back(pause);

  Command resume{"kinds resume",
                 "KIND [--yes] [--json]",
                 "claim a paused kind's jobs again",
                 "Idle workers are woken at once (NOTIFY awc_jobs) and drain\n"
                 "the jobs that waited. Resuming a kind that is not paused\n"
                 "changes nothing and says so.\n",
                 {}};
  resume.min_args = resume.max_args = 1;
  resume.json = true;
  resume.changes = true;
  resume.run = RunResume;
  out->push_back(resume);

  Command priority{
      "kinds priority",
      "KIND PRIORITY [--force] [--yes] [--json]",
      "set the priority a kind's jobs get",
      "Jobs of KIND enqueued from now on without a priority of their own\n"
      "get PRIORITY, 0 (the most urgent) to 9; claims take the most\n"
      "urgent ready job first. KIND's PENDING jobs that have its old\n"
      "priority move to the new one at once; those their producer gave\n"
      "another keep it, and RUNNING jobs are not affected. KIND must be a\n"
      "built-in kind or one with jobs in awc.jobs; --force sets another.\n",
      {{"force", nullptr, "set a kind with no job and not built in"}}};
  priority.min_args = priority.max_args = 2;
  priority.json = true;
  priority.changes = true;
  priority.run = RunPriority;
  out->push_back(priority);

  Command limit{
      "kinds limit",
      "KIND [--host N|none] [--fleet N|none] [--force] [--yes] [--json]",
      "limit how many jobs of a kind run at once",
      "At most N jobs of KIND run at once under each AWC_WORKER_ID\n"
      "(--host: each host's own, by default) or in the whole fleet\n"
      "(--fleet); \"none\" removes a limit, an option left out keeps it.\n"
      "Workers keep a limit from their next claim but one, and never stop\n"
      "a running job for it: a limit lowered below what runs is kept as\n"
      "those jobs end. Hosts of a release before limits existed do not\n"
      "keep them. KIND must be a built-in kind or one with jobs in\n"
      "awc.jobs; --force sets another.\n",
      {{"host", "N|none", "at most N per AWC_WORKER_ID"},
       {"fleet", "N|none", "at most N in all"},
       {"force", nullptr, "set a kind with no job and not built in"}}};
  limit.min_args = limit.max_args = 1;
  limit.json = true;
  limit.changes = true;
  limit.run = RunLimit;
  out->push_back(limit);
}

}  // namespace awc::cli
