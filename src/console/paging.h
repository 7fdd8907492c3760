// Keyset paging of the console's listings: newest first, a page at a time,
// by id. A link to an older page carries `before=<last id shown>`, a link
// to a newer one `after=<first id shown>`; neither depends on how many rows
// came before, so a page costs the same at the start and deep into a
// history of millions of rows.
#ifndef AWC_CONSOLE_PAGING_H_
#define AWC_CONSOLE_PAGING_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "console/html.h"
#include "console/read_model.h"

namespace awc::console {

// How to query for a page: the statement's direction, its cursor and how
// many rows to ask for (one more than shown, to learn whether more exist).
struct PageQuery {
  bool newer = false;  // ascending from `after`, else descending
  int64_t cursor = std::numeric_limits<int64_t>::max();
  int fetch = 0;
};

PageQuery PlanPage(const PageRequest& page);

// Trims the rows a PageQuery fetched to the page (newest first) and sets
// `older` and `newer`.
template <typename Row>
void FinishPage(const PageRequest& page, const PageQuery& q,
                std::vector<Row> rows, Page<Row>* out) {
  bool more = rows.size() > static_cast<size_t>(page.limit);
  if (more) rows.resize(static_cast<size_t>(page.limit));
  if (q.newer) {
    std::reverse(rows.begin(), rows.end());
    out->newer = more;
    out->older = true;
  } else {
    out->older = more;
    out->newer = page.before.has_value();
  }
  out->rows = std::move(rows);
}

// The "newest · newer · older" links of a page showing ids `first` (its
// newest row) to `last`; `path` and `args` are the page's own, without the
// cursor. Empty when there is nothing to link to.
std::string PageLinks(std::string_view path, const UrlArgs& args, bool newer,
                      bool older, int64_t first, int64_t last);

}  // namespace awc::console

#endif  // AWC_CONSOLE_PAGING_H_
