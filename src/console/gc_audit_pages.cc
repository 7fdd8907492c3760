// GC epochs and locks, and the audit trail.
#include "console/pages.h"

namespace awc::console {
namespace {

// Audit subjects name what they are about: "snapshot/42" links to the
// snapshot's page, "gc_epoch/7" to the GC page; others are shown as text.
std::string Subject(const std::string& subject, const std::string& tenant) {
  static const std::string kSnapshot = "snapshot/";
  if (subject.starts_with(kSnapshot)) {
    std::string id = subject.substr(kSnapshot.size());
    bool digits = !id.empty() && id.size() < 19 &&
                  id.find_first_not_of("0123456789") == std::string::npos;
    if (digits) return Link("/snapshots/" + id, subject);
  }
  if (subject.starts_with("gc_epoch/") && !tenant.empty()) {
    return Link(Url("/gc", {{"tenant", tenant}}), subject);
  }
  return Escape(subject);
}

}  // namespace

std::string RenderGc(const GcView& v, const std::string& tenant,
                     const PageContext& ctx) {
  const Page<EpochRow>& page = v.epochs;
  double now = page.clock.now;
  std::string body = "<h2>Tenant locks</h2>\n";
  Table locks;
  locks.headers = {"tenant", "holder", "acquired", "expires", "lock"};
  locks.empty = "no sweep holds a lock";
  for (const GcLockRow& l : v.locks) {
    locks.Add({Escape(l.tenant_id), "<code>" + Escape(l.holder) + "</code>",
               When(l.acquired_at, now), When(l.expires_at, now),
               Badge(l.expired ? "expired" : "held")});
  }
  body += locks.Html();
  body += "<h2>Epochs</h2>\n";
  body += FilterForm(ctx, {{"tenant", "tenant", tenant, {}}});
  Table t;
  t.headers = {"epoch",   "tenant",        "state", "planned", "planned bytes",
               "deleted", "deleted bytes", "kept",  "canary",  "job",
               "started", "finished",      "reason"};
  t.numeric = {3, 4, 5, 6, 7};
  t.wrap = {12};
  t.empty = "no GC epochs";
  for (const EpochRow& e : page.rows) {
    std::string state = Badge(e.state);
    if (e.dry_run) state += " " + Badge("dry run");
    t.Add({std::to_string(e.id),
           Link(Url("/gc", {{"tenant", e.tenant_id}}), e.tenant_id), state,
           Count(e.planned), Escape(Bytes(e.planned_bytes)), Count(e.deleted),
           Escape(Bytes(e.deleted_bytes)), Count(e.kept),
           e.canary_verified ? "verified" : None(),
           e.job_id != 0 ? JobLink(e.job_id) : None(), When(e.created_at, now),
           When(e.finished_at, now),
           e.reason.empty() ? None() : Escape(e.reason)});
  }
  body += t.Html();
  body += Pager(ctx, page, [](const EpochRow& e) { return e.id; });
  return Layout(ctx, "/gc", "Garbage collection", &page.clock, body);
}

std::string RenderAudit(const Page<AuditRow>& page, const AuditFilter& f,
                        const PageContext& ctx) {
  double now = page.clock.now;
  std::string body = FilterForm(ctx, {{"event", "event", f.event, {}},
                                      {"tenant", "tenant", f.tenant, {}},
                                      {"subject", "subject", f.subject, {}}});
  Table t;
  t.headers = {"id", "when", "tenant", "event", "subject", "data"};
  t.numeric = {0};
  t.wrap = {5};
  t.empty = "no audit events match";
  for (const AuditRow& a : page.rows) {
    t.Add({std::to_string(a.id), When(a.created_at, now),
           a.tenant_id.empty()
               ? None()
               : Link(Url("/audit", {{"tenant", a.tenant_id}}), a.tenant_id),
           Link(Url("/audit", {{"event", a.event}}), a.event),
           Subject(a.subject, a.tenant_id),
           "<code>" + Escape(a.data) + "</code>"});
  }
  body += t.Html();
  body += Pager(ctx, page, [](const AuditRow& a) { return a.id; });
  return Layout(ctx, "/audit", "Audit trail", &page.clock, body);
}

}  // namespace awc::console
