// awcctl jobs list|show|cancel|retry (awcctl(1), "jobs").
#include <string>

#include "cli/invocation.h"
#include "cli/jobs_output.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/enum_table.h"
#include "queue/admin.h"
#include "queue/job.h"

namespace awc::cli {
namespace {

int RunList(Invocation& inv) {
  std::string state = inv.args().Get("state");
  if (inv.args().Has("state") &&
      FindRowNamed(queue::kJobStates, state) == nullptr) {
    return inv.Usage("--state must be " +
                     JoinNames(queue::kJobStates, ", ", " or "));
  }
  int64_t limit = 50;
  if (inv.args().Has("limit")) {
    Result<int64_t> n =
        ParseCount(inv.args().Get("limit"), "--limit", 1, 100000);
    if (!n.ok()) return inv.Usage(n.status().message());
    limit = *n;
  }
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<queue::JobRow>> rows = queue::ListJobs(
      **conn, state, inv.args().Get("kind"), static_cast<int>(limit));
  if (!rows.ok()) return inv.Fail(rows.status());
  PrintJobRows(inv, "jobs", *rows);
  return kExitOk;
}

int RunShow(Invocation& inv) {
  Result<std::vector<int64_t>> ids = ParseIds(inv.args().positional);
  if (!ids.ok()) return inv.Usage(ids.status().message());
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::optional<queue::JobDetail>> job =
      queue::ShowJob(**conn, (*ids)[0]);
  if (!job.ok()) return inv.Fail(job.status());
  if (!*job) {
    return inv.Fail(Status::NotFound("job " + std::to_string((*ids)[0]) +
                                     " does not exist"));
  }
  const queue::JobDetail& d = **job;
  const queue::JobRow& r = d.row;
  auto text_or_none = [](const std::string& s) {
    return s.empty() ? Cell::None() : Cell::Text(s);
  };
  Record rec;
  rec.Add("id", "id", Cell::Int(r.id))
      .Add("kind", "kind", Cell::Text(r.kind))
      .Add("state", "state", Cell::Text(r.state))
      .Add("attempts", "attempts", Cell::Int(r.attempts))
      .Add("max attempts", "max_attempts", Cell::Int(r.max_attempts))
      .Add("priority", "priority", Cell::Int(d.priority))
      .Add("run at", "run_at", Cell::Text(r.run_at))
      .Add("created at", "created_at", Cell::Text(d.created_at))
      .Add("updated at", "updated_at", Cell::Text(r.updated_at))
      .Add("finished at", "finished_at", text_or_none(r.finished_at))
      // Kept after the lease ends: the holder of the last claim.
      .Add(r.state == queue::JobStateName(queue::JobState::kRunning)
               ? "lease holder"
               : "last lease holder",
           "locked_by", text_or_none(r.locked_by))
      .Add("lease until", "locked_until", text_or_none(d.locked_until))
      .Add("lease token", "lease_token",
           d.lease_token != 0 ? Cell::Int(d.lease_token) : Cell::None())
      .Add("dead reason", "dead_reason", text_or_none(r.dead_reason))
      .Add("last error", "last_error", text_or_none(r.last_error))
      .Add("payload", "payload", Cell::Text(d.payload))
      .Add("result", "result", text_or_none(d.result));
  // Every attempt that ended in an error, oldest first.
  Table errors({{"ATTEMPT", "attempt"},
                {"AT", "at"},
                {"WORKER", "worker"},
                {"THEN", "state"},
                {"DEAD_REASON", "dead_reason"},
                {"ERROR", "error"}});
  for (const queue::AttemptError& e : d.errors) {
    errors.Add({Cell::Int(e.attempt), Cell::Text(e.at), text_or_none(e.worker),
                Cell::Text(e.state), text_or_none(e.dead_reason),
                Cell::Text(e.error)});
  }
  if (inv.json()) {
    JsonPtr doc = rec.Json();
    json_object_set_new(doc.get(), "errors", errors.Json().release());
    // payload and result as JSON values, not as their text.
    for (const char* key : {"payload", "result"}) {
      const std::string& text =
          std::string_view(key) == "payload" ? d.payload : d.result;
      if (text.empty()) continue;
      Result<JsonPtr> value = ParseJson(text);
      if (value.ok()) json_object_set_new(doc.get(), key, value->release());
    }
    inv.Print(doc);
  } else {
    inv.Print(rec.Text());
    if (errors.size() > 0) inv.Print("\nerrors:\n" + errors.Text());
  }
  return kExitOk;
}

// cancel and retry: one change per named job.
int RunChange(Invocation& inv, bool cancel) {
  Result<std::vector<int64_t>> ids = ParseIds(inv.args().positional);
  if (!ids.ok()) return inv.Usage(ids.status().message());
  Result<db::PgConn*> conn = inv.Connect({.changes = true});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<queue::IdOutcome>> done =
      cancel ? queue::CancelJobs(**conn, *ids) : queue::RetryJobs(**conn, *ids);
  if (!done.ok()) return inv.Fail(done.status());
  return PrintIdOutcomes(inv, cancel ? "cancelled" : "retried",
                         cancel ? "PENDING or RUNNING" : "FAILED or CANCELLED",
                         *done);
}

int RunCancel(Invocation& inv) { return RunChange(inv, true); }
int RunRetry(Invocation& inv) { return RunChange(inv, false); }

}  // namespace

void AddJobsCommands(std::vector<Command>* out) {
  static const std::string list_help =
      "S is one of " + JoinNames(queue::kJobStates) +
      ";\n"
      "FAILED jobs are the dead letters (see awcctl dlq). At most 50\n"
      "jobs unless --limit says otherwise. \"awcctl jobs [options]\"\n"
      "is the same.\n";
  Command list{"jobs list",
               "[--state S] [--kind K] [--limit N] [--json]",
               "list jobs, newest first",
               list_help.c_str(),
               {{"state", "S", "only jobs in state S"},
                {"kind", "K", "only jobs of kind K"},
                {"limit", "N", "at most N jobs (1 to 100000, default 50)"}}};
  list.json = true;
  list.bare = true;
  list.run = RunList;
  out->push_back(list);

  Command show{"jobs show",
               "ID [--json]",
               "show everything about one job",
               "Its payload and result, attempts, lease holder and lease end,\n"
               "run_at, last error and dead reason.\n",
               {}};
  show.min_args = show.max_args = 1;
  show.json = true;
  show.run = RunShow;
  out->push_back(show);

  Command cancel{
      "jobs cancel",
      "ID... [--yes] [--json]",
      "cancel PENDING and RUNNING jobs",
      "A cancelled PENDING job is never claimed; a RUNNING one's\n"
      "handler stops at its next checkpoint, within about a second,\n"
      "and its outcome is discarded. Exits 1 if a named job was not\n"
      "cancelled (it does not exist, or it is in another state).\n",
      {}};
  cancel.min_args = 1;
  cancel.max_args = -1;
  cancel.json = true;
  cancel.changes = true;
  cancel.run = RunCancel;
  out->push_back(cancel);

  Command retry{
      "jobs retry",
      "ID... [--yes] [--json]",
      "put FAILED and CANCELLED jobs back to PENDING",
      "The job is ready at once with its attempts reset to 0 and its\n"
      "dead reason cleared; its last error stays until it is\n"
      "replaced. Exits 1 if a named job was not retried.\n",
      {}};
  retry.min_args = 1;
  retry.max_args = -1;
  retry.json = true;
  retry.changes = true;
  retry.run = RunRetry;
  out->push_back(retry);
}

}  // namespace awc::cli
