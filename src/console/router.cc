#include "console/router.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include "catalog/states.h"
#include "common/enum_table.h"
#include "common/json.h"
#include "common/numbers.h"
#include "console/pages.h"
#include "queue/job.h"

namespace awc::console {
namespace {

constexpr size_t kMaxText = 200;
constexpr int kPageRows = 50;
constexpr const char* kHtml = "text/html; charset=utf-8";

// The checked query arguments of one request.
class Args {
 public:
  explicit Args(const http::HttpRequest& r) : r_(r) {}

  // A free-text filter; "" when absent.
  Result<std::string> Text(const char* name) const {
    const std::string* v = r_.Arg(name);
    if (v == nullptr) return std::string();
    if (v->size() > kMaxText) {
      return Status::InvalidArgument(std::string(name) + " is longer than " +
                                     std::to_string(kMaxText) + " bytes");
    }
    bool control = std::any_of(v->begin(), v->end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (control || ValidUtf8(*v) != *v) {
      return Status::InvalidArgument(std::string(name) +
                                     " is not UTF-8 text without control "
                                     "characters");
    }
    return *v;
  }

  // The name of one row of the closed list `rows` (common/enum_table.h),
  // or "" when absent or empty.
  template <typename Row, size_t N>
  Result<std::string> OneOf(const char* name, const Row (&rows)[N]) const {
    AWC_ASSIGN_OR_RETURN(std::string v, Text(name));
    if (v.empty() || FindRowNamed(rows, v) != nullptr) return v;
    return Status::InvalidArgument(std::string(name) + " must be one of " +
                                   JoinNames(rows));
  }

  // A positive integer, or nullopt when absent.
  Result<std::optional<int64_t>> Id(const char* name) const {
    const std::string* v = r_.Arg(name);
    if (v == nullptr || v->empty()) return std::optional<int64_t>();
    AWC_ASSIGN_OR_RETURN(int64_t id, PositiveId(*v, name));
    return std::optional<int64_t>(id);
  }

  Result<PageRequest> Paging() const {
    PageRequest p;
    p.limit = kPageRows;
    AWC_ASSIGN_OR_RETURN(p.before, Id("before"));
    AWC_ASSIGN_OR_RETURN(p.after, Id("after"));
    if (p.before && p.after) {
      return Status::InvalidArgument("before and after go alone, not together");
    }
    return p;
  }

  Result<int> Refresh() const {
    const std::string* v = r_.Arg("refresh");
    if (v == nullptr || v->empty() || *v == "0") return 0;
    Result<int64_t> n = ParseInt64(*v);
    if (!n.ok() || *n < 5 || *n > 3600) {
      return Status::InvalidArgument(
          "refresh must be 0 (off) or 5 to 3600 seconds");
    }
    return static_cast<int>(*n);
  }

  static Result<int64_t> PositiveId(const std::string& text,
                                    const std::string& what) {
    bool digits = !text.empty() && text.size() <= 19 &&
                  std::all_of(text.begin(), text.end(),
                              [](char c) { return c >= '0' && c <= '9'; });
    Result<int64_t> n = digits ? ParseInt64(text) : Status::InvalidArgument("");
    if (!n.ok() || *n < 1) {
      return Status::InvalidArgument(what + " must be a positive integer");
    }
    return *n;
  }

 private:
  const http::HttpRequest& r_;
};

http::HttpResponse Html(int status, std::string body) {
  return http::HttpResponse{status, kHtml, std::move(body), {}};
}

// The id of "/<prefix>/<id>", nullopt when `path` is not of that form, or
// an error when the id is not a positive integer.
std::optional<Result<int64_t>> IdPath(const std::string& path,
                                      const std::string& prefix) {
  std::string head = prefix + "/";
  if (!path.starts_with(head) || path.size() == head.size()) {
    return std::nullopt;
  }
  return Args::PositiveId(path.substr(head.size()), prefix.substr(1) + " id");
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host.empty()) return true;
  std::string name;
  if (host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string::npos) return false;
    name = host.substr(1, close - 1);
    std::string rest = host.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    return name == "::1";
  }
  name = host.substr(0, host.find(':'));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (name == "localhost" || name == "localhost.") return true;
  // 127.0.0.0/8 in dotted decimal.
  int parts = 0;
  size_t at = 0;
  while (at <= name.size()) {
    size_t dot = name.find('.', at);
    if (dot == std::string::npos) dot = name.size();
    std::string part = name.substr(at, dot - at);
    if (part.empty() || part.size() > 3 ||
        part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(part) > 255) {
      return false;
    }
    if (parts == 0 && part != "127") return false;
    ++parts;
    at = dot + 1;
  }
  return parts == 4;
}

http::HttpHeaders Router::SecurityHeaders() {
  return {
      {"Content-Security-Policy",
       "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  };
}

Router::Router(ReadModel& model, std::string target, bool local_hosts_only)
    : model_(model),
      target_(std::move(target)),
      local_hosts_only_(local_hosts_only) {}

http::HttpResponse Router::Handle(const http::HttpRequest& request) {
  std::string path = request.path;
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  PageContext ctx;
  ctx.target = target_;
  ctx.path = path;

  auto bad = [&](const Status& s) {
    return Html(400, RenderError(ctx, "Bad request", s.message(), 0));
  };
  auto unavailable = [&](const Status& s) {
    if (path == "/api/overview") {
      JsonObject doc;
      doc.Str("error", s.message());
      return http::HttpResponse{503, "application/json", doc.Dump() + "\n", {}};
    }
    return Html(
        503, RenderError(ctx, "Database unavailable", s.message(), kRetrySecs));
  };
  auto not_found = [&](const std::string& what) {
    return Html(404, RenderError(ctx, "Not found", what, 0));
  };

  if (local_hosts_only_ && !IsLoopbackHost(request.host)) {
    return Html(403, RenderError(ctx, "Forbidden",
                                 "This console listens on a loopback address "
                                 "and answers only requests addressed to "
                                 "localhost, 127.0.0.1 or [::1].",
                                 0));
  }
  if (path == "/favicon.ico") return http::HttpResponse{204, kHtml, "", {}};

  Args args(request);
  Result<int> refresh = args.Refresh();
  if (!refresh.ok()) return bad(refresh.status());
  ctx.refresh = *refresh;
  // The page's own arguments, kept by its links (filters are added below).
  auto keep = [&](UrlArgs filters) {
    if (ctx.refresh > 0) {
      filters.emplace_back("refresh", std::to_string(ctx.refresh));
    }
    ctx.args = std::move(filters);
  };
  keep({});

  if (path == "/" || path == "/api/overview") {
    Result<Overview> o = model_.ReadOverview();
    if (!o.ok()) return unavailable(o.status());
    if (path == "/api/overview") {
      return http::HttpResponse{200, "application/json", OverviewJson(*o), {}};
    }
    return Html(200, RenderOverview(*o, ctx));
  }
  if (std::optional<Result<int64_t>> id = IdPath(path, "/jobs")) {
    if (!id->ok()) return bad(id->status());
    Result<std::optional<JobView>> job = model_.ReadJob(**id);
    if (!job.ok()) return unavailable(job.status());
    if (!*job)
      return not_found("There is no job " + std::to_string(**id) + ".");
    return Html(200, RenderJob(**job, ctx));
  }
  if (std::optional<Result<int64_t>> id = IdPath(path, "/snapshots")) {
    if (!id->ok()) return bad(id->status());
    Result<std::optional<SnapshotView>> s = model_.ReadSnapshot(**id);
    if (!s.ok()) return unavailable(s.status());
    if (!*s) {
      return not_found("There is no snapshot " + std::to_string(**id) + ".");
    }
    return Html(200, RenderSnapshot(**s, ctx));
  }
  if (path == "/jobs" || path == "/dead") {
    JobFilter f;
    Result<std::string> state = args.OneOf("state", queue::kJobStates);
    if (!state.ok()) return bad(state.status());
    Result<std::string> kind = args.Text("kind");
    if (!kind.ok()) return bad(kind.status());
    Result<std::string> reason = args.OneOf("reason", queue::kDeadReasons);
    if (!reason.ok()) return bad(reason.status());
    f = JobFilter{*state, *kind, *reason};
    if (path == "/dead") {
      keep({{"kind", f.kind}, {"reason", f.reason}});
      Result<DeadLetterView> v = model_.ReadDeadLetters(f, kPageRows);
      if (!v.ok()) return unavailable(v.status());
      return Html(200, RenderDeadLetters(*v, f, ctx));
    }
    Result<PageRequest> page = args.Paging();
    if (!page.ok()) return bad(page.status());
    keep({{"state", f.state}, {"kind", f.kind}, {"reason", f.reason}});
    Result<Page<queue::JobRow>> rows = model_.ReadJobs(f, *page);
    if (!rows.ok()) return unavailable(rows.status());
    return Html(200, RenderJobs(*rows, f, ctx));
  }
  if (path == "/snapshots") {
    Result<std::string> tenant = args.Text("tenant");
    if (!tenant.ok()) return bad(tenant.status());
    Result<std::string> state = args.OneOf("state", catalog::kSnapshotStates);
    if (!state.ok()) return bad(state.status());
    Result<PageRequest> page = args.Paging();
    if (!page.ok()) return bad(page.status());
    SnapshotFilter f{*tenant, *state};
    keep({{"tenant", f.tenant}, {"state", f.state}});
    Result<Page<SnapshotRow>> rows = model_.ReadSnapshots(f, *page);
    if (!rows.ok()) return unavailable(rows.status());
    return Html(200, RenderSnapshots(*rows, f, ctx));
  }
  if (path == "/gc") {
    Result<std::string> tenant = args.Text("tenant");
    if (!tenant.ok()) return bad(tenant.status());
    Result<PageRequest> page = args.Paging();
    if (!page.ok()) return bad(page.status());
    keep({{"tenant", *tenant}});
    Result<GcView> v = model_.ReadGc(*tenant, *page);
    if (!v.ok()) return unavailable(v.status());
    return Html(200, RenderGc(*v, *tenant, ctx));
  }
  if (path == "/audit") {
    AuditFilter f;
    for (auto [name, field] :
         {std::pair{"event", &f.event}, std::pair{"tenant", &f.tenant},
          std::pair{"subject", &f.subject}}) {
      Result<std::string> v = args.Text(name);
      if (!v.ok()) return bad(v.status());
      *field = *v;
    }
    Result<PageRequest> page = args.Paging();
    if (!page.ok()) return bad(page.status());
    keep({{"event", f.event}, {"tenant", f.tenant}, {"subject", f.subject}});
    Result<Page<AuditRow>> rows = model_.ReadAudit(f, *page);
    if (!rows.ok()) return unavailable(rows.status());
    return Html(200, RenderAudit(*rows, f, ctx));
  }
  return not_found("The console has no page " + request.path + ".");
}

}  // namespace awc::console
