// awcctl workers: the fleet as the workers' heartbeats show it (awcctl(1),
// "workers"; fleet/workers.h).
#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "fleet/workers.h"

namespace awc::cli {
namespace {

// The job's progress as its worker last wrote it: its line in the table,
// the whole object in --json.
Cell ProgressCell(const fleet::WorkerRow& w) {
  return w.progress.empty() ? Cell::None()
                            : Cell::Document(w.progress, w.progress_line);
}

int RunWorkers(Invocation& inv) {
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<fleet::WorkerRow>> rows = fleet::ListWorkers(**conn);
  if (!rows.ok()) return inv.Fail(rows.status());
  Table t({{"HOST", "host"},
           {"SLOT", "slot"},
           {"WORKER", "worker_id"},
           {"PID", "pid"},
           {"STATE", "state"},
           {"JOB", "job_id"},
           {"KIND", "job_kind"},
           {"HEARTBEAT", "heartbeat_age_s"},
           {"FRESH", "fresh"},
           {"STARTED_AT", "started_at"},
           {"BUILD", "build"},
           {"PROGRESS", "progress"}});
  for (const fleet::WorkerRow& w : *rows) {
    bool job = w.job_id != 0;
    t.Add({Cell::Text(w.host), Cell::Int(w.slot), Cell::Text(w.worker_id),
           Cell::Int(w.pid), Cell::Text(w.state),
           job ? Cell::Int(w.job_id) : Cell::None(),
           job ? Cell::Text(w.job_kind) : Cell::None(),
           Cell::Secs(w.heartbeat_age), Cell::Bool(w.fresh),
           Cell::Text(w.started_at),
           w.build.empty() ? Cell::None() : Cell::Text(w.build),
           ProgressCell(w)});
  }
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "workers", t.Json().release());
    inv.Print(doc);
  } else {
    inv.Print(t.Text());
  }
  return kExitOk;
}

}  // namespace

void AddWorkersCommands(std::vector<Command>* out) {
  Command c{"workers",
            "[--json]",
            "list the workers by host and slot, with their state and job",
            "One line per worker process that wrote a heartbeat: its state\n"
            "(idle, busy, stopped), the job it runs, how long ago it last\n"
            "wrote (HEARTBEAT) and whether that is recent enough for it to be\n"
            "taken as alive (FRESH), and how far its job has got (PROGRESS:\n"
            "a scrub's share of its closure, the rate and an ETA, as of the\n"
            "last heartbeat). Rows of workers silent for an hour are\n"
            "removed by the others.\n",
            {}};
  c.json = true;
  c.run = RunWorkers;
  out->push_back(c);
}

}  // namespace awc::cli
