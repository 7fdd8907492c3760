// awcctl dlq list|retry|purge: the dead letters, FAILED jobs (awcctl(1),
// "dlq").
#include <string>
#include <string_view>

#include "cli/invocation.h"
#include "cli/jobs_output.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "common/enum_table.h"
#include "queue/dead_letters.h"
#include "queue/job.h"

namespace awc::cli {
namespace {

// Rows a dry run shows at most.
constexpr int kDryRunRows = 100;

// `text` filled into lines of at most `width` bytes, breaking at spaces.
std::string Fill(const std::string& text, size_t width) {
  std::string out;
  size_t line = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    std::string_view word(text.data() + at, end - at);
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    at = end + 1;
  }
  return out;
}

Status CheckReason(const std::string& reason) {
  if (queue::ParseDeadReason(reason) != queue::DeadReason::kNone) {
    return Status::OK();
  }
  return Status::InvalidArgument("--reason must be " +
                                 JoinNames(queue::kDeadReasons, ", ", " or "));
}

// The selection of a dlq verb from its arguments, or a usage error. A bulk
// verb (no ids) needs a filter or --all.
Result<queue::DeadLetterFilter> Selection(Invocation& inv, bool bulk_verb) {
  const ParsedArgs& a = inv.args();
  queue::DeadLetterFilter f;
  AWC_ASSIGN_OR_RETURN(f.ids, ParseIds(a.positional));
  f.kind = a.Get("kind");
  if (a.Has("kind") && f.kind.empty()) {
    return Status::InvalidArgument("--kind is empty");
  }
  if (a.Has("reason")) {
    f.reason = a.Get("reason");
    AWC_RETURN_IF_ERROR(CheckReason(f.reason));
  }
  if (a.Has("older-than")) {
    Result<double> older = ParseDuration(a.Get("older-than"));
    if (!older.ok()) return older.status().WithContext("--older-than");
    f.older_than_secs = *older;
  }
  if (!bulk_verb) return f;
  bool filtered = a.Has("kind") || a.Has("reason") || a.Has("older-than");
  if (!f.ids.empty() && (filtered || a.Has("all"))) {
    return Status::InvalidArgument("name IDs or select by filter, not both");
  }
  if (a.Has("all") && filtered) {
    return Status::InvalidArgument(
        "--all selects every dead letter: no filter "
        "goes with it");
  }
  if (f.ids.empty() && !filtered && !a.Has("all")) {
    return Status::InvalidArgument(
        std::string(inv.command().name) +
        " needs IDs or a filter; --all acts on every dead letter");
  }
  return f;
}

int RunList(Invocation& inv) {
  Result<queue::DeadLetterFilter> f = Selection(inv, false);
  if (!f.ok()) return inv.Usage(f.status().message());
  int64_t limit = 50;
  if (inv.args().Has("limit")) {
    Result<int64_t> n =
        ParseCount(inv.args().Get("limit"), "--limit", 1, 100000);
    if (!n.ok()) return inv.Usage(n.status().message());
    limit = *n;
  }
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<std::vector<queue::JobRow>> rows =
      queue::ListDeadLetters(**conn, *f, static_cast<int>(limit));
  if (!rows.ok()) return inv.Fail(rows.status());
  Result<int64_t> total = queue::CountDeadLetters(**conn, *f);
  if (!total.ok()) return inv.Fail(total.status());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "count", json_integer(*total));
    json_object_set_new(doc.get(), "dead_letters",
                        JobRowsTable(*rows, true).Json().release());
    inv.Print(doc);
    return kExitOk;
  }
  inv.Print(JobRowsTable(*rows, false).Text());
  if (*total > static_cast<int64_t>(rows->size())) {
    inv.Note("showing " + std::to_string(rows->size()) + " of " +
             std::to_string(*total) + " dead letters (--limit N for more)");
  }
  return kExitOk;
}

// retry and purge: a dry run lists what the selection holds; otherwise the
// change, then its count.
int RunBulk(Invocation& inv, bool retry) {
  Result<queue::DeadLetterFilter> f = Selection(inv, true);
  if (!f.ok()) return inv.Usage(f.status().message());
  const char* done = retry ? "retried" : "purged";
  const char* would = retry ? "would retry" : "would purge";
  bool dry_run = inv.args().Has("dry-run");
  Result<db::PgConn*> conn = inv.Connect({.changes = !dry_run});
  if (!conn.ok()) return inv.Fail(conn.status());
  if (dry_run) {
    Result<int64_t> total = queue::CountDeadLetters(**conn, *f);
    if (!total.ok()) return inv.Fail(total.status());
    Result<std::vector<queue::JobRow>> rows =
        queue::ListDeadLetters(**conn, *f, kDryRunRows);
    if (!rows.ok()) return inv.Fail(rows.status());
    if (inv.json()) {
      JsonPtr doc(json_object());
      json_object_set_new(doc.get(), "dry_run", json_true());
      json_object_set_new(doc.get(), retry ? "would_retry" : "would_purge",
                          json_integer(*total));
      json_object_set_new(doc.get(), "dead_letters",
                          JobRowsTable(*rows, true).Json().release());
      inv.Print(doc);
      return kExitOk;
    }
    std::string text = JobRowsTable(*rows, false).Text();
    if (*total > static_cast<int64_t>(rows->size())) {
      text += "(the first " + std::to_string(rows->size()) + " shown)\n";
    }
    inv.Print(text + would + " " + std::to_string(*total) + " dead letter" +
              (*total == 1 ? "" : "s") + "\n");
    return kExitOk;
  }
  Result<queue::Changed> changed = retry ? queue::RetryDeadLetters(**conn, *f)
                                         : queue::PurgeDeadLetters(**conn, *f);
  if (!changed.ok()) return inv.Fail(changed.status());
  std::vector<int64_t> missed;
  for (int64_t id : f->ids) {
    if (std::find(changed->ids.begin(), changed->ids.end(), id) ==
        changed->ids.end()) {
      missed.push_back(id);
    }
  }
  std::sort(missed.begin(), missed.end());
  missed.erase(std::unique(missed.begin(), missed.end()), missed.end());
  if (inv.json()) {
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), done, json_integer(changed->count));
    json_t* arr = json_array();
    for (int64_t id : missed) json_array_append_new(arr, json_integer(id));
    json_object_set_new(doc.get(), "not_dead_letters", arr);
    inv.Print(doc);
  } else {
    std::string text;
    for (int64_t id : missed) {
      text += std::to_string(id) + ": not a dead letter\n";
    }
    inv.Print(text + done + " " + std::to_string(changed->count) +
              " dead letter" + (changed->count == 1 ? "" : "s") + "\n");
  }
  return missed.empty() ? kExitOk : kExitError;
}

int RunRetry(Invocation& inv) { return RunBulk(inv, true); }
int RunPurge(Invocation& inv) { return RunBulk(inv, false); }

}  // namespace

void AddDlqCommands(std::vector<Command>* out) {
  static const std::string list_help =
      Fill("R is why a job was dead-lettered: " +
               JoinNames(queue::kDeadReasons, ", ", " or ") +
               ". \"awcctl dlq [options]\" is the same.",
           52) +
      "\n";
  Command list{"dlq list",
               "[--kind K] [--reason R] [--limit N] [--json]",
               "list dead letters (FAILED jobs), newest first",
               list_help.c_str(),
               {{"kind", "K", "only dead letters of kind K"},
                {"reason", "R", "only dead letters dead for reason R"},
                {"limit", "N", "at most N (1 to 100000, default 50)"}}};
  list.json = true;
  list.bare = true;
  list.run = RunList;
  out->push_back(list);

  Command retry{
      "dlq retry",
      "ID... | --kind K | --reason R | --all  [--dry-run] [--yes] "
      "[--json]",
      "put dead letters back to PENDING",
      "Selects dead letters by id, by kind and reason (together they\n"
      "narrow), or all of them with --all: without ids or a filter\n"
      "nothing is selected. Each goes back to PENDING, ready at once,\n"
      "attempts reset. --dry-run shows what would be retried. Prints\n"
      "how many were retried; exits 1 if a named id was not a dead\n"
      "letter.\n",
      {{"kind", "K", "the dead letters of kind K"},
       {"reason", "R", "the dead letters dead for reason R"},
       {"all", nullptr, "every dead letter"},
       {"dry-run", nullptr, "show what would be retried"}}};
  retry.max_args = -1;
  retry.json = true;
  retry.changes = true;
  retry.run = RunRetry;
  out->push_back(retry);

  Command purge{
      "dlq purge",
      "ID... | --kind K | --older-than DURATION | --all  [--dry-run] "
      "[--yes] [--json]",
      "delete dead letters",
      "Selects dead letters by id, by kind and age (together they\n"
      "narrow; DURATION is like 90s, 15m, 12h, 7d, 2w and counts from\n"
      "when the job failed), or all of them with --all. --dry-run\n"
      "shows what would be deleted. Prints how many were deleted;\n"
      "exits 1 if a named id was not a dead letter.\n",
      {{"kind", "K", "the dead letters of kind K"},
       {"older-than", "DURATION", "the dead letters that failed longer ago"},
       {"all", nullptr, "every dead letter"},
       {"dry-run", nullptr, "show what would be deleted"}}};
  purge.max_args = -1;
  purge.json = true;
  purge.changes = true;
  purge.run = RunPurge;
  out->push_back(purge);
}

}  // namespace awc::cli
