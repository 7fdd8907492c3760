// awcctl stats: the queue and the catalog in numbers (awcctl(1), "stats").
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog_stats.h"
#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "gc/epochs.h"
#include "queue/job.h"
#include "queue/kind_settings.h"
#include "queue/queue_stats.h"

namespace awc::cli {
namespace {

Cell OptSecs(const std::optional<double>& secs) {
  return secs ? Cell::Secs(*secs) : Cell::None();
}

// The jobs of `k` in `state`.
int64_t CountIn(const queue::KindStats& k, queue::JobState state) {
  switch (state) {
    case queue::JobState::kPending:
      return k.pending;
    case queue::JobState::kRunning:
      return k.running;
    case queue::JobState::kCompleted:
      return k.completed;
    case queue::JobState::kFailed:
      return k.failed;
    case queue::JobState::kCancelled:
      return k.cancelled;
    case queue::JobState::kOther:
      break;
  }
  return 0;
}

// Jobs by kind, with whether each kind is paused (docs/queue.md, "Pausing
// a kind"); a paused kind without jobs has a row of zeros.
Result<Table> JobsTable(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(std::vector<queue::KindStats> rows,
                       queue::JobStatsByKind(conn));
  AWC_ASSIGN_OR_RETURN(std::vector<queue::PausedKind> paused,
                       queue::PausedKinds(conn));
  std::set<std::string> paused_kinds;
  for (const queue::PausedKind& p : paused) {
    paused_kinds.insert(p.kind);
    bool listed = false;
    for (const queue::KindStats& k : rows) listed = listed || k.kind == p.kind;
    if (listed) continue;
    queue::KindStats none;
    none.kind = p.kind;
    rows.push_back(std::move(none));
  }
  std::sort(rows.begin(), rows.end(),
            [](const queue::KindStats& a, const queue::KindStats& b) {
              return a.kind < b.kind;
            });
  // KIND, PAUSED, a column per state (its JSON key the state in lower
  // case), then OLDEST_PENDING.
  std::vector<Table::Column> columns = {{"KIND", "kind"}, {"PAUSED", "paused"}};
  for (const queue::JobStateRow& s : queue::kJobStates) {
    std::string key = s.name;
    for (char& c : key) c = static_cast<char>(std::tolower(c));
    columns.push_back({s.name, key});
  }
  columns.push_back({"OLDEST_PENDING", "oldest_pending_s"});
  Table t(std::move(columns));
  for (const queue::KindStats& k : rows) {
    std::vector<Cell> cells = {Cell::Text(k.kind),
                               Cell::Bool(paused_kinds.contains(k.kind))};
    for (const queue::JobStateRow& s : queue::kJobStates) {
      cells.push_back(Cell::Int(CountIn(k, s.value)));
    }
    cells.push_back(OptSecs(k.oldest_pending_secs));
    t.Add(std::move(cells));
  }
  return t;
}

Result<Table> DeadLettersTable(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(std::vector<queue::ReasonCount> rows,
                       queue::DeadLettersByReason(conn));
  Table t({{"REASON", "reason"}, {"COUNT", "count"}});
  for (const queue::ReasonCount& r : rows) {
    t.Add({r.reason.empty() ? Cell::None() : Cell::Text(r.reason),
           Cell::Int(r.count)});
  }
  return t;
}

Table StatesTable(const std::vector<catalog::StateCount>& rows) {
  Table t({{"STATE", "state"}, {"COUNT", "count"}});
  for (const catalog::StateCount& r : rows) {
    t.Add({Cell::Text(r.state), Cell::Int(r.count)});
  }
  return t;
}

Result<Table> EpochsTable(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(std::vector<gc::EpochSummary> rows,
                       gc::LastEpochs(conn));
  Table t({{"TENANT", "tenant_id"},
           {"EPOCH", "epoch_id"},
           {"STATE", "state"},
           {"DRY_RUN", "dry_run"},
           {"PLANNED", "planned"},
           {"DELETED", "deleted"},
           {"KEPT", "kept"},
           {"STARTED_AT", "started_at"},
           {"FINISHED_AGO", "finished_ago_s"}});
  for (const gc::EpochSummary& e : rows) {
    t.Add({Cell::Text(e.tenant_id), Cell::Int(e.epoch_id), Cell::Text(e.state),
           Cell::Bool(e.dry_run), Cell::Int(e.planned), Cell::Int(e.deleted),
           Cell::Int(e.kept), Cell::Text(e.created_at),
           OptSecs(e.finished_secs_ago)});
  }
  return t;
}

int RunStats(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  db::PgConn& c = **conn;
  Result<Table> jobs = JobsTable(c);
  if (!jobs.ok()) return inv.Fail(jobs.status());
  Result<Table> dead = DeadLettersTable(c);
  if (!dead.ok()) return inv.Fail(dead.status());
  Result<std::vector<catalog::StateCount>> snapshots =
      catalog::SnapshotsByState(c);
  if (!snapshots.ok()) return inv.Fail(snapshots.status());
  Result<std::vector<catalog::StateCount>> workspaces =
      catalog::WorkspacesByState(c);
  if (!workspaces.ok()) return inv.Fail(workspaces.status());
  Result<Table> epochs = EpochsTable(c);
  if (!epochs.ok()) return inv.Fail(epochs.status());
  struct Section {
    const char* key;
    const char* title;
    const Table& table;
  };
  Table snapshot_table = StatesTable(*snapshots);
  Table workspace_table = StatesTable(*workspaces);
  const Section sections[] = {
      {"jobs", "jobs by kind", *jobs},
      {"dead_letters", "dead letters by reason", *dead},
      {"snapshots", "snapshots by state", snapshot_table},
      {"workspaces", "workspaces by state", workspace_table},
      {"gc_epochs", "last GC epoch per tenant", *epochs},
  };
  if (inv.json()) {
    JsonPtr doc(json_object());
    for (const Section& s : sections) {
      json_object_set_new(doc.get(), s.key, s.table.Json().release());
    }
    inv.Print(doc);
    return kExitOk;
  }
  std::string text;
  for (const Section& s : sections) {
    if (!text.empty()) text += "\n";
    text += std::string(s.title) + "\n" + s.table.Text();
  }
  inv.Print(text);
  return kExitOk;
}

}  // namespace

void AddStatsCommands(std::vector<Command>* out) {
  Command c{
      "stats",
      "[--json]",
      "count jobs, dead letters, snapshots, workspaces and GC epochs",
      "Jobs by kind and state with whether the kind is paused (awcctl\n"
      "kinds) and how long the oldest ready job of each kind has waited,\n"
      "dead letters by reason, snapshots and workspaces by state, and\n"
      "the last GC epoch of each tenant. Counting jobs reads the whole\n"
      "queue table.\n",
      {}};
  c.json = true;
  c.run = RunStats;
  out->push_back(c);
}

}  // namespace awc::cli
