// awcctl health [--fleet]: whether the database, the schema and (with
// --fleet) the workers are ready; exit 0 ready, 1 not (awcctl(1), "health").
#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "db/writable.h"
#include "fleet/id_clash.h"
#include "fleet/workers.h"
#include "migrate/migrator.h"
#include "options/module_options.h"
#include "queue/horizon.h"
#include "queue/kind_settings.h"

namespace awc::cli {
namespace {

struct Check {
  std::string name;
  bool ok = false;
  std::string detail;
  // Passes, but names something to look at ("WARN"; "warning" in JSON).
  bool warn = false;
};

// Whether the daemon could write through a session like this one
// (docs/operations.md, "Read-only sessions"): a standby, or
// default_transaction_read_only, makes its workers wait.
Check WritableCheck(db::PgConn& conn) {
  Status s = db::RequireWritable(conn);
  return {"writable", s.ok(), s.ok() ? "the session can write" : s.message()};
}

// Worker ids in use on more than one host (docs/observability.md): a
// warning, as on /readyz; the fleet still works.
Check IdsCheck(db::PgConn& conn) {
  Check c{"worker ids", true, "each in use on one host"};
  Result<std::vector<fleet::IdClash>> clashes = fleet::IdClashes(conn);
  if (!clashes.ok()) {
    c.ok = false;
    c.detail = clashes.status().message();
    return c;
  }
  if (clashes->empty()) return c;
  c.warn = true;
  c.detail.clear();
  for (const fleet::IdClash& clash : *clashes) {
    if (!c.detail.empty()) c.detail += "; ";
    c.detail += fleet::Describe(clash);
  }
  return c;
}

// "ok", "WARN" (passed, with something to look at) or "FAIL".
const char* StatusOf(const Check& c) {
  if (!c.ok) return "FAIL";
  return c.warn ? "WARN" : "ok";
}

Check FleetCheck(db::PgConn& conn) {
  Check c{"fleet", false, ""};
  Result<std::vector<fleet::WorkerRow>> rows = fleet::ListWorkers(conn);
  if (!rows.ok()) {
    c.detail = rows.status().message();
    return c;
  }
  int alive = 0;
  for (const fleet::WorkerRow& w : *rows) {
    if (w.fresh && w.state != "stopped") ++alive;
  }
  c.ok = alive > 0;
  c.detail = c.ok ? std::to_string(alive) + " worker" +
                        (alive == 1 ? "" : "s") + " with a fresh heartbeat"
                  : "no worker has written a heartbeat in the last " +
                        std::to_string(static_cast<int>(fleet::kFreshSecs)) +
                        " s";
  return c;
}

// Which kinds are paused (docs/queue.md, "Pausing a kind"). A pause is an
// operator's decision, not a fault: the check passes either way, and is
// there so that a forgotten pause shows where the operator looks.
Check KindsCheck(db::PgConn& conn) {
  Check c{"kinds", false, ""};
  Result<std::vector<queue::PausedKind>> paused = queue::PausedKinds(conn);
  if (!paused.ok()) {
    c.detail = paused.status().message();
    return c;
  }
  c.ok = true;
  if (paused->empty()) {
    c.detail = "none paused";
    return c;
  }
  c.detail = std::to_string(paused->size()) + " paused:";
  for (const queue::PausedKind& p : *paused) c.detail += " " + p.kind;
  return c;
}

// What holds the database's horizon back (docs/queue.md, "The horizon").
// Like a pause, informational: the claim cursor keeps the queue moving
// while it is held, so the check passes either way and names the holder
// where the operator looks.
Check HorizonCheck(db::PgConn& conn) {
  Check c{"horizon", false, ""};
  Result<queue::Horizon> h = queue::SampleHorizon(conn);
  if (!h.ok()) {
    c.detail = h.status().message();
    return c;
  }
  c.ok = true;
  c.detail = h->holder ? "held by " + queue::Describe(*h->holder) : "not held";
  if (h->hidden_sessions > 0) {
    c.detail += "; " + std::to_string(h->hidden_sessions) +
                " session(s) of other roles not visible to this role "
                "(pg_read_all_stats)";
  }
  return c;
}

int RunHealth(Invocation& inv) {
  std::vector<Check> checks;
  Result<db::PgConn*> conn = inv.Connect({.any_schema = true});
  if (!conn.ok() && !conn.status().IsTransient()) {
    return inv.Fail(conn.status());  // settings, not the database
  }
  checks.push_back({"database", conn.ok(),
                    conn.ok() ? inv.target() : conn.status().message()});
  if (conn.ok()) checks.push_back(WritableCheck(**conn));
  if (conn.ok()) {
    Status schema = migrate::CheckCurrent(**conn);
    std::string detail = schema.message();
    if (schema.ok()) {
      Result<migrate::SchemaState> state = migrate::Inspect(**conn);
      detail = state.ok() ? "version " + std::to_string(state->current_version)
                          : "current";
      // A later release's migrations, compatible with this build.
      if (state.ok() && !state->newer.empty()) {
        detail += " (a later release's; this build knows " +
                  std::to_string(state->latest_version) +
                  " and runs beside it)";
      }
    }
    checks.push_back({"schema", schema.ok(), detail});
    if (schema.ok()) {
      checks.push_back(KindsCheck(**conn));
      checks.push_back(HorizonCheck(**conn));
    }
    if (inv.args().Has("fleet")) {
      checks.push_back(FleetCheck(**conn));
      checks.push_back(IdsCheck(**conn));
    }
  } else {
    checks.push_back({"writable", false, "not checked: no database"});
    checks.push_back({"schema", false, "not checked: no database"});
    if (inv.args().Has("fleet")) {
      checks.push_back({"fleet", false, "not checked: no database"});
    }
  }
  // Informational, behind a transaction pooler: that workers with these
  // settings poll (awc-worker(8), CONNECTION POOLERS).
  if (Result<const config::Settings*> s = inv.Settings();
      s.ok() && (*s)->DatabasePoolMode() == db::PoolMode::kTransaction) {
    checks.push_back({"notifications", true, options::NotificationsNote(**s)});
  }
  bool ready = true;
  for (const Check& c : checks) ready = ready && c.ok;
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "ready", json_boolean(ready));
    json_t* arr = json_array();
    for (const Check& c : checks) {
      json_t* o = json_object();
      json_object_set_new(o, "name", JsonText(c.name).release());
      json_object_set_new(o, "ok", json_boolean(c.ok));
      if (c.warn) json_object_set_new(o, "warning", json_true());
      json_object_set_new(o, "detail", JsonText(c.detail).release());
      json_array_append_new(arr, o);
    }
    json_object_set_new(doc.get(), "checks", arr);
    inv.Print(doc);
  } else {
    Table t({{"CHECK", "name"}, {"STATUS", "status"}, {"DETAIL", "detail"}});
    for (const Check& c : checks) {
      t.Add(
          {Cell::Text(c.name), Cell::Text(StatusOf(c)), Cell::Text(c.detail)});
    }
    inv.Print(t.Text() + (ready ? "ready\n" : "not ready\n"));
  }
  return ready ? kExitOk : kExitError;
}

}  // namespace

void AddHealthCommands(std::vector<Command>* out) {
  Command c{
      "health",
      "[--fleet] [--json]",
      "check that the database is reachable and its schema current",
      "Checks, each named with its result: database (reachable), writable\n"
      "(the session can write: not a standby, default_transaction_read_only\n"
      "off), schema (at this binary's version), kinds (which job kinds are\n"
      "paused: awcctl kinds; it passes either way), horizon (what holds\n"
      "back the database's MVCC horizon, and for how long; it passes either\n"
      "way), with --fleet, fleet (at least one worker with a fresh\n"
      "heartbeat in awc.workers) and worker ids (WARN, passing, when one\n"
      "AWC_WORKER_ID is in use on more than one host), and with\n"
      "AWC_DATABASE_POOL_MODE=transaction notifications (always ok:\n"
      "that workers poll, and how often). Exits 0 when every check\n"
      "passes, 1 otherwise.\n",
      {{"fleet", nullptr, "also require a live worker"}}};
  c.json = true;
  c.run = RunHealth;
  out->push_back(c);
}

}  // namespace awc::cli
