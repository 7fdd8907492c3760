// The jobs: a filtered, paged listing and one job.
#include "console/pages.h"
#include "queue/job.h"

namespace awc::console {
namespace {

std::string TextOrNone(const std::string& s) {
  return s.empty() ? None() : Escape(s);
}

std::string ShortError(const std::string& error) {
  if (error.empty()) return None();
  constexpr size_t kShown = 100;
  if (error.size() <= kShown) return Escape(error);
  size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(error[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return "<span title=\"" + Escape(error) + "\">" +
         Escape(error.substr(0, cut)) + "\xE2\x80\xA6</span>";
}

}  // namespace

std::string JobRowsTable(const std::vector<queue::JobRow>& rows, double now,
                         const char* empty) {
  Table t;
  t.headers = {"job",    "kind",    "state",       "tries",
               "run at", "updated", "dead reason", "last error"};
  t.numeric = {3};
  t.wrap = {7};
  t.empty = empty;
  for (const queue::JobRow& r : rows) {
    t.Add({JobLink(r.id), Escape(r.kind), Badge(r.state),
           std::to_string(r.attempts) + "/" + std::to_string(r.max_attempts),
           When(r.run_at, now), When(r.updated_at, now),
           TextOrNone(r.dead_reason), ShortError(r.last_error)});
  }
  return t.Html();
}

std::string RenderJobs(const Page<queue::JobRow>& page, const JobFilter& f,
                       const PageContext& ctx) {
  std::string body = FilterForm(
      ctx, {{"state", "state", f.state, Choices(queue::kJobStates)},
            {"kind", "kind", f.kind, {}},
            {"reason", "dead reason", f.reason, Choices(queue::kDeadReasons)}});
  body += JobRowsTable(page.rows, page.clock.now, "no jobs match");
  body += Pager(ctx, page, [](const queue::JobRow& r) { return r.id; });
  body += "<p class=\"note\">Newest first, " +
          std::to_string(page.rows.size()) + " on this page.</p>\n";
  return Layout(ctx, "/jobs", "Jobs", &page.clock, body);
}

std::string RenderJob(const JobView& v, const PageContext& ctx) {
  const queue::JobRow& r = v.job.row;
  double now = v.clock.now;
  // A finished job keeps the id of the worker that last held it.
  std::string lease = None();
  if (!r.locked_by.empty()) {
    lease = "<code>" + Escape(r.locked_by) + "</code>";
    if (!v.job.locked_until.empty()) {
      lease += ", lease ends " + When(v.job.locked_until, now);
    }
    if (v.job.lease_token != 0) {
      lease += ", token " + std::to_string(v.job.lease_token);
    }
  }
  std::string body = Record({
      {"kind", Link(Url("/jobs", {{"kind", r.kind}}), r.kind)},
      {"state", Badge(r.state)},
      {"attempts",
       std::to_string(r.attempts) + " of " + std::to_string(r.max_attempts)},
      {"priority", std::to_string(v.job.priority)},
      {"run at", When(r.run_at, now)},
      {"created", When(v.job.created_at, now)},
      {"updated", When(r.updated_at, now)},
      {"finished", When(r.finished_at, now)},
      {queue::ParseJobState(r.state) == queue::JobState::kRunning
           ? "lease holder"
           : "last lease holder",
       lease},
      {"dead reason",
       r.dead_reason.empty()
           ? None()
           : Link(Url("/dead", {{"reason", r.dead_reason}}), r.dead_reason)},
      {"last error", r.last_error.empty()
                         ? None()
                         : "<pre>" + Escape(r.last_error) + "</pre>"},
  });
  // Every attempt that ended in an error, not only the last.
  Table errors;
  errors.headers = {"attempt", "at", "worker", "then", "error"};
  errors.numeric = {0};
  errors.wrap = {4};
  errors.empty = "no attempt ended in an error";
  for (const queue::AttemptError& e : v.job.errors) {
    std::string then = Badge(e.state);
    if (!e.dead_reason.empty()) then += " " + Escape(e.dead_reason);
    errors.Add(
        {std::to_string(e.attempt), When(e.at, now),
         e.worker.empty() ? None() : "<code>" + Escape(e.worker) + "</code>",
         then, Escape(e.error)});
  }
  body += "<h2>Errors</h2>\n" + errors.Html();
  body += "<h2>Payload</h2>\n" + JsonBlock(v.job.payload) + "\n";
  body += "<h2>Result</h2>\n" + JsonBlock(v.job.result) + "\n";
  body += "<p>" + Link("/jobs", "\xE2\x86\x90 all jobs") + "</p>\n";
  return Layout(ctx, "/jobs", "Job " + std::to_string(r.id), &v.clock, body);
}

}  // namespace awc::console
