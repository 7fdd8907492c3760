// The console's pages: each renders one view of the read model (read_model.h)
// as a whole HTML document (docs/console.md, "Console"). Renderers
// only format: they escape every value (html.h), never read the database,
// and never emit a script, an external resource or a form that posts.
#ifndef AWC_CONSOLE_PAGES_H_
#define AWC_CONSOLE_PAGES_H_

#include <string>
#include <string_view>

#include "console/html.h"
#include "console/read_model.h"

namespace awc::console {

// What every page shows around its content.
struct PageContext {
  std::string target;  // the database, as awcctl's target line names it
  std::string path;    // this page's path and arguments (its filters and
  UrlArgs args;        // `refresh`, no cursor), for its own links
  int refresh = 0;     // reload every this many seconds; 0: never
};

// The whole document: head (inline style sheet, optional refresh), the
// navigation with `active` marked, the database line, `title` and `body`.
// `clock` may be null (the error page knows no database time).
std::string Layout(const PageContext& ctx, std::string_view active,
                   std::string_view title, const Clock* clock,
                   std::string_view body);

// A page that says what went wrong: `title` and `detail` are plain text.
// `retry_secs` > 0 reloads the page after that long.
std::string RenderError(const PageContext& ctx, std::string_view title,
                        std::string_view detail, int retry_secs);

std::string RenderOverview(const Overview& view, const PageContext& ctx);
std::string RenderJobs(const Page<queue::JobRow>& page, const JobFilter& filter,
                       const PageContext& ctx);
std::string RenderJob(const JobView& view, const PageContext& ctx);
std::string RenderDeadLetters(const DeadLetterView& view,
                              const JobFilter& filter, const PageContext& ctx);
std::string RenderSnapshots(const Page<SnapshotRow>& page,
                            const SnapshotFilter& filter,
                            const PageContext& ctx);
std::string RenderSnapshot(const SnapshotView& view, const PageContext& ctx);
std::string RenderGc(const GcView& view, const std::string& tenant,
                     const PageContext& ctx);
std::string RenderAudit(const Page<AuditRow>& page, const AuditFilter& filter,
                        const PageContext& ctx);

// /api/overview: the overview as one JSON document.
std::string OverviewJson(const Overview& view);

// Shared by the renderers (page_parts.cc).
// JSON text pretty-printed (two-space indent) and escaped inside <pre>;
// text that is not JSON is shown escaped as it is.
std::string JsonBlock(std::string_view json);
// The pager of a listing (paging.h) for `page`'s first and last rows.
template <typename Row, typename IdOf>
std::string Pager(const PageContext& ctx, const Page<Row>& page, IdOf id_of);
// A GET form over `ctx.path` with the given fields, for filtering.
struct Field {
  std::string name;
  std::string label;
  std::string value;
  std::vector<std::string> choices;  // a <select> when not empty ("" = any)
};
std::string FilterForm(const PageContext& ctx,
                       const std::vector<Field>& fields);
// The choices of a field over a closed list (common/enum_table.h): any,
// then each row's name in table order.
template <typename Row, size_t N>
std::vector<std::string> Choices(const Row (&rows)[N]) {
  std::vector<std::string> out = {""};
  for (const Row& row : rows) out.emplace_back(row.name);
  return out;
}
// "<key>: <value>" rows of a record (values are HTML).
std::string Record(const std::vector<std::pair<std::string, std::string>>& kv);
// The rows of a job listing (jobs and dead letters); `empty` when none.
std::string JobRowsTable(const std::vector<queue::JobRow>& rows, double now,
                         const char* empty);
// A link to a job: "#<id>" to /jobs/<id>.
std::string JobLink(int64_t id);

}  // namespace awc::console

#include "console/paging.h"

namespace awc::console {

template <typename Row, typename IdOf>
std::string Pager(const PageContext& ctx, const Page<Row>& page, IdOf id_of) {
  if (page.rows.empty()) {
    return page.newer || page.older
               ? "<nav class=\"pages\">" +
                     Link(Url(ctx.path, ctx.args), "\xE2\x87\xA4 newest") +
                     "</nav>\n"
               : "";
  }
  return PageLinks(ctx.path, ctx.args, page.newer, page.older,
                   id_of(page.rows.front()), id_of(page.rows.back()));
}

}  // namespace awc::console

#endif  // AWC_CONSOLE_PAGES_H_
