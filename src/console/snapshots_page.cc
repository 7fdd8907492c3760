// The snapshots: a filtered, paged listing with their verdicts, and one
// snapshot with its history from the audit trail.
#include "catalog/states.h"
#include "console/pages.h"

namespace awc::console {
namespace {

std::string OptCount(const std::optional<int64_t>& n) {
  return n ? Count(*n) : None();
}

std::string OptBytes(const std::optional<int64_t>& n) {
  return n ? Escape(Bytes(*n)) : None();
}

std::string SnapshotLink(int64_t id) {
  return Link("/snapshots/" + std::to_string(id), "#" + std::to_string(id));
}

std::string Failure(const SnapshotRow& s) {
  if (s.failure_code.empty()) return None();
  return "<code>" + Escape(s.failure_code) + "</code>";
}

}  // namespace

std::string RenderSnapshots(const Page<SnapshotRow>& page,
                            const SnapshotFilter& f, const PageContext& ctx) {
  double now = page.clock.now;
  std::string body = FilterForm(
      ctx, {{"tenant", "tenant", f.tenant, {}},
            {"state", "state", f.state, Choices(catalog::kSnapshotStates)}});
  Table t;
  t.headers = {"snapshot", "tenant",  "workspace",    "state",    "pinned",
               "root",     "created", "validated",    "scrubbed", "objects",
               "bytes",    "failure", "failed digest"};
  t.numeric = {9, 10};
  t.empty = "no snapshots match";
  for (const SnapshotRow& s : page.rows) {
    t.Add({SnapshotLink(s.id),
           Link(Url("/snapshots", {{"tenant", s.tenant_id}}), s.tenant_id),
           s.workspace_id != 0 ? std::to_string(s.workspace_id) : None(),
           Badge(s.state), s.pinned ? "yes" : "<span class=\"none\">no</span>",
           ShortDigest(s.root_digest), When(s.created_at, now),
           When(s.validated_at, now), When(s.scrubbed_at, now),
           OptCount(s.object_count), OptBytes(s.byte_count), Failure(s),
           ShortDigest(s.failure_digest)});
  }
  body += t.Html();
  body += Pager(ctx, page, [](const SnapshotRow& s) { return s.id; });
  return Layout(ctx, "/snapshots", "Snapshots", &page.clock, body);
}

std::string RenderSnapshot(const SnapshotView& v, const PageContext& ctx) {
  const SnapshotRow& s = v.snapshot;
  double now = v.clock.now;
  std::string body = Record({
      {"tenant",
       Link(Url("/snapshots", {{"tenant", s.tenant_id}}), s.tenant_id)},
      {"workspace",
       s.workspace_id != 0 ? std::to_string(s.workspace_id) : None()},
      {"state", Badge(s.state)},
      {"pinned", s.pinned ? "yes" : "no"},
      {"root digest", "<code>" + Escape(s.root_digest) + "</code>"},
      {"created", When(s.created_at, now)},
      {"validated", When(s.validated_at, now)},
      {"scrubbed", When(s.scrubbed_at, now)},
      {"released", When(s.released_at, now)},
      {"objects", OptCount(s.object_count)},
      {"bytes", OptBytes(s.byte_count)},
      {"failure code", Failure(s)},
      {"failed digest", s.failure_digest.empty()
                            ? None()
                            : "<code>" + Escape(s.failure_digest) + "</code>"},
  });
  if (!s.failure.empty()) {
    body += "<h2>Failure record</h2>\n" + JsonBlock(s.failure) + "\n";
  }
  body += "<h2>History (validation, scrubs, release)</h2>\n";
  Table t;
  t.headers = {"event", "when", "data"};
  t.wrap = {2};
  t.empty = "no audit events for this snapshot";
  for (const AuditRow& a : v.history) {
    t.Add({"<code>" + Escape(a.event) + "</code>", When(a.created_at, now),
           "<code>" + Escape(a.data) + "</code>"});
  }
  body += t.Html();
  body += "<p>" +
          Link(Url("/audit", {{"subject", "snapshot/" + std::to_string(s.id)}}),
               "every audit event of this snapshot") +
          " \xC2\xB7 " + Link("/snapshots", "\xE2\x86\x90 all snapshots") +
          "</p>\n";
  return Layout(ctx, "/snapshots", "Snapshot " + std::to_string(s.id), &v.clock,
                body);
}

}  // namespace awc::console
