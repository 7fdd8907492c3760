// The overview: the queue, dead letters, the fleet, the scheduler, the
// catalog and GC on one page.
#include "console/pages.h"
#include "queue/job.h"
#include "scheduler/firing.h"

namespace awc::console {
namespace {

// A count linking to the listing it counts, counted up to `cap` (0: no
// cap; see CountUpTo); zero is shown faint.
std::string CountLink(int64_t n, const std::string& url, int64_t cap = 0) {
  if (n == 0) return "<span class=\"zero\">0</span>";
  return "<a href=\"" + Escape(url) + "\">" + CountUpTo(n, cap) + "</a>";
}

// The pause of `kind`, if it is paused.
const queue::PausedKind* PauseOf(const Overview& o, const std::string& kind) {
  for (const queue::PausedKind& p : o.paused_kinds) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

// A "paused" badge after a kind's name, with the pause on hover.
std::string PausedMark(const queue::PausedKind* p) {
  if (p == nullptr) return "";
  std::string title = "paused " + p->paused_at;
  if (!p->paused_by.empty()) title += " by " + p->paused_by;
  if (!p->reason.empty()) title += ": " + p->reason;
  return " <span class=\"paused-kind\" title=\"" + Escape(title) + "\">" +
         Badge("paused") + "</span>";
}

// The paused kinds, with since when, by whom and why (docs/queue.md,
// "Pausing a kind"); nothing when none is.
std::string PausedKindsSection(const Overview& o) {
  if (o.paused_kinds.empty()) return "";
  Table t;
  t.headers = {"kind", "paused", "by", "reason"};
  t.wrap = {3};
  for (const queue::PausedKind& p : o.paused_kinds) {
    t.Add(
        {Link(Url("/jobs", {{"kind", p.kind}, {"state", "PENDING"}}), p.kind) +
             " " + Badge("paused"),
         When(p.paused_at, o.clock.now),
         p.paused_by.empty() ? None() : Escape(p.paused_by),
         p.reason.empty() ? None() : Escape(p.reason)});
  }
  return "<h2 id=\"paused-kinds\">Paused kinds</h2>\n" + t.Html() +
         "<p class=\"note\">No worker claims their PENDING jobs, which "
         "still queue up; <code>awcctl kinds resume KIND</code> lets them "
         "run.</p>\n";
}

// What holds the database's horizon back (docs/queue.md, "The horizon"),
// when a transaction has held it for a second or more, or a slot or
// standby holds it; nothing otherwise.
std::string HorizonSection(const Overview& o) {
  const std::optional<queue::Horizon::Holder>& h = o.horizon.holder;
  if (!h || (h->held_secs && *h->held_secs < 1)) return "";
  return "<h2 id=\"horizon\">Horizon held back</h2>\n<p>By " +
         Escape(queue::Describe(*h)) +
         ". Until it ends, vacuum reclaims nothing in <code>awc.jobs</code>: "
         "the workers keep claiming, but the table grows.</p>\n";
}

std::string QueueSection(const Overview& o) {
  Table t;
  t.headers = {"kind", "ready",     "scheduled", "running",
               "dead", "cancelled", "completed", "oldest ready"};
  t.numeric = {1, 2, 3, 4, 5, 6, 7};
  t.empty = "no jobs";
  for (const KindDepth& k : o.queue) {
    auto jobs = [&](queue::JobState state) {
      return Url("/jobs",
                 {{"kind", k.kind}, {"state", queue::JobStateName(state)}});
    };
    t.Add(
        {Link(Url("/jobs", {{"kind", k.kind}}), k.kind) +
             PausedMark(PauseOf(o, k.kind)),
         CountLink(k.ready, jobs(queue::JobState::kPending), kJobCountCap),
         CountLink(k.scheduled, jobs(queue::JobState::kPending), kJobCountCap),
         CountLink(k.running, jobs(queue::JobState::kRunning)),
         CountLink(k.failed, Url("/dead", {{"kind", k.kind}})),
         CountLink(k.cancelled, jobs(queue::JobState::kCancelled)),
         CountLink(k.completed, jobs(queue::JobState::kCompleted),
                   kJobCountCap),
         Age(k.oldest_ready_secs, o.clock.now)});
  }
  std::string note = "<p class=\"note\">";
  if (o.jobs_estimate) {
    note += "About " + Count(*o.jobs_estimate) +
            " jobs in awc.jobs (the planner's estimate). ";
  }
  note += "Ready, scheduled and completed jobs are counted up to " +
          Count(kJobCountCap) +
          " per kind; <code>awcctl stats</code> counts them all.</p>\n";
  return "<h2>Queue by kind</h2>\n" + t.Html() + note;
}

std::string DeadSection(const Overview& o) {
  Table t;
  t.headers = {"reason", "dead letters"};
  t.numeric = {1};
  t.empty = "no dead letters";
  for (const queue::ReasonCount& r : o.dead_by_reason) {
    std::string reason = r.reason.empty() ? "(not recorded)" : r.reason;
    t.Add({Link(Url("/dead", {{"reason", r.reason}}), reason),
           CountLink(r.count, Url("/dead", {{"reason", r.reason}}))});
  }
  return "<h2>Dead letters by reason</h2>\n" + t.Html();
}

// The line of the job's progress its worker last wrote (a scrub's share,
// rate and ETA), or a dash.
std::string ProgressOf(const fleet::WorkerRow& w) {
  return w.progress_line.empty() ? None() : Escape(w.progress_line);
}

// Worker ids in use on more than one host (docs/observability.md), when
// there are any: a warning above the workers, since the silent-holder
// rescue cannot tell such hosts apart.
std::string IdClashSection(const Overview& o) {
  if (o.id_clashes.empty()) return "";
  std::string items;
  for (const fleet::IdClash& c : o.id_clashes) {
    items += "<li><code>" + Escape(c.worker_id) + "</code> on " +
             std::to_string(c.hosts.size()) +
             " hosts: " + Escape(fleet::HostList(c)) + "</li>\n";
  }
  return "<h2 id=\"id-clashes\">Worker ids on more than one host</h2>\n<ul>" +
         items +
         "</ul>\n<p class=\"note\">Their workers are one holder to the "
         "silent-holder rescue: a job of a host that went silent waits for "
         "its lease while the other host beats. Give each host its own "
         "<code>AWC_WORKER_ID</code>, or leave it unset.</p>\n";
}

std::string WorkersSection(const Overview& o) {
  Table t;
  t.headers = {"host", "slot",     "worker",    "pid",     "state",
               "job",  "progress", "heartbeat", "started", "build"};
  t.numeric = {1, 3};
  t.empty = "no worker has written a heartbeat";
  for (const fleet::WorkerRow& w : o.workers) {
    std::string job = None();
    if (w.job_id != 0) job = JobLink(w.job_id) + " " + Escape(w.job_kind);
    t.Add({Escape(w.host), std::to_string(w.slot), Escape(w.worker_id),
           std::to_string(w.pid), Badge(w.state), job, ProgressOf(w),
           Badge(w.fresh ? "fresh" : "stale") + " " +
               Age(w.heartbeat_age, o.clock.now),
           When(w.started_at, o.clock.now),
           w.build.empty() ? None() : Escape(w.build)});
  }
  return "<h2>Workers by host</h2>\n" + t.Html();
}

std::string Shorten(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = max;
  // Do not cut a UTF-8 sequence in two.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return text.substr(0, cut) + "\xE2\x80\xA6";
}

std::string SchedulerSection(const Overview& o) {
  const SchedulerView& s = o.scheduler;
  std::string out = "<h2>Scheduler</h2>\n";
  if (!s.leader) {
    out += "<p class=\"none\">No scheduler has led yet.</p>\n";
  } else {
    const scheduler::LeaseRow& l = *s.leader;
    out += "<p>Leader " + Badge(l.expired ? "expired" : "held") + " <code>" +
           Escape(l.holder) + "</code>, token " + std::to_string(l.token) +
           ", lease ends " + When(l.expires_at, o.clock.now) + ".</p>\n";
  }
  Table t;
  t.headers = {"schedule", "spec",     "kind", "state",
               "next run", "last run", "runs", "last result"};
  t.numeric = {6};
  t.wrap = {7};
  t.empty = "no schedules";
  for (const scheduler::ScheduleRow& r : s.schedules) {
    std::string kind = r.kind.empty() ? None() : Escape(r.kind);
    if (r.builtin) kind += " <span class=\"none\">built-in</span>";
    kind += PausedMark(PauseOf(o, r.kind));
    t.Add({Escape(r.name), "<code>" + Escape(r.spec) + "</code>", kind,
           Badge(r.paused ? "paused" : "active"),
           When(r.next_run_at, o.clock.now), When(r.last_run_at, o.clock.now),
           Count(r.runs),
           r.last_result.empty()
               ? None()
               : "<span title=\"" + Escape(r.last_result) + "\">" +
                     Escape(Shorten(scheduler::RunSummary(r.last_result), 80)) +
                     "</span>"});
  }
  return out + t.Html();
}

// `cap` > 0: counts stop there (CountUpTo).
std::string StatesTable(const char* what,
                        const std::vector<catalog::StateCount>& rows,
                        const char* link, int64_t cap) {
  Table t;
  t.headers = {"state", what};
  t.numeric = {1};
  t.empty = std::string("no ") + what;
  for (const catalog::StateCount& r : rows) {
    t.Add({Badge(r.state),
           link != nullptr
               ? CountLink(r.count, Url(link, {{"state", r.state}}), cap)
               : CountUpTo(r.count, cap)});
  }
  return t.Html();
}

std::string CatalogSection(const Overview& o) {
  return "<section class=\"grid\"><div><h2>Snapshots by state</h2>\n" +
         StatesTable("snapshots", o.snapshots, "/snapshots", kSnapshotCap) +
         "<p class=\"note\">Counted up to " + Count(kSnapshotCap) +
         " per state.</p>\n</div><div><h2>Workspaces by state</h2>\n" +
         StatesTable("workspaces", o.workspaces, nullptr, 0) +
         "</div></section>\n";
}

std::string GcSection(const Overview& o) {
  Table t;
  t.headers = {"tenant",  "epoch", "state",   "planned",
               "deleted", "kept",  "started", "finished"};
  t.numeric = {1, 3, 4, 5};
  t.empty = "no GC epoch yet";
  for (const gc::EpochSummary& e : o.epochs) {
    std::string state = Badge(e.state);
    if (e.dry_run) state += " " + Badge("dry run");
    t.Add({Link(Url("/gc", {{"tenant", e.tenant_id}}), e.tenant_id),
           std::to_string(e.epoch_id), state, Count(e.planned),
           Count(e.deleted), Count(e.kept), When(e.created_at, o.clock.now),
           e.finished_secs_ago ? Age(e.finished_secs_ago, o.clock.now)
                               : "<span class=\"none\">open</span>"});
  }
  return "<h2>Last GC epoch per tenant</h2>\n" + t.Html();
}

}  // namespace

std::string RenderOverview(const Overview& o, const PageContext& ctx) {
  std::string body =
      PausedKindsSection(o) + HorizonSection(o) + QueueSection(o);
  body += "<section class=\"grid\"><div>" + DeadSection(o) + "</div><div>" +
          GcSection(o) + "</div></section>\n";
  body += IdClashSection(o) + WorkersSection(o);
  body += SchedulerSection(o);
  body += CatalogSection(o);
  return Layout(ctx, "/", "Overview", &o.clock, body);
}

}  // namespace awc::console
