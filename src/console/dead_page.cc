// The dead letters: counts by reason and kind, and the newest of those the
// filter selects (the paged listing is the jobs page's, state FAILED).
#include "console/pages.h"
#include "queue/job.h"

namespace awc::console {
namespace {

std::string CountsTable(const char* what, const char* arg,
                        const std::vector<queue::ReasonCount>& rows) {
  Table t;
  t.headers = {what, "dead letters"};
  t.numeric = {1};
  t.empty = "no dead letters";
  for (const queue::ReasonCount& r : rows) {
    std::string label = r.reason.empty() ? "(not recorded)" : r.reason;
    t.Add({Link(Url("/dead", {{arg, r.reason}}), label), Count(r.count)});
  }
  return t.Html();
}

}  // namespace

std::string RenderDeadLetters(const DeadLetterView& v, const JobFilter& f,
                              const PageContext& ctx) {
  std::string body = "<section class=\"grid\"><div><h2>By reason</h2>\n" +
                     CountsTable("reason", "reason", v.by_reason) +
                     "</div><div><h2>By kind</h2>\n" +
                     CountsTable("kind", "kind", v.by_kind) +
                     "</div></section>\n";
  body += "<h2>Newest dead letters</h2>\n";
  body += FilterForm(
      ctx, {{"kind", "kind", f.kind, {}},
            {"reason", "reason", f.reason, Choices(queue::kDeadReasons)}});
  body += JobRowsTable(v.newest, v.clock.now, "no dead letters match");
  std::string all =
      Url("/jobs", {{"state", queue::JobStateName(queue::JobState::kFailed)},
                    {"kind", f.kind},
                    {"reason", f.reason}});
  body += "<p class=\"note\">" + Count(v.matching) +
          " dead letters match; showing the newest " +
          std::to_string(v.newest.size()) + ". " +
          Link(all, "Page through all of them") + ". " +
          "<code>awcctl dlq retry</code> and <code>awcctl dlq purge</code> "
          "act on them; this console only reads.</p>\n";
  return Layout(ctx, "/dead", "Dead letters", &v.clock, body);
}

}  // namespace awc::console
