#include "console/paging.h"

namespace awc::console {

PageQuery PlanPage(const PageRequest& page) {
  PageQuery q;
  q.fetch = page.limit + 1;
  if (page.after) {
    q.newer = true;
    q.cursor = *page.after;
  } else if (page.before) {
    q.cursor = *page.before;
  }
  return q;
}

std::string PageLinks(std::string_view path, const UrlArgs& args, bool newer,
                      bool older, int64_t first, int64_t last) {
  if (!newer && !older) return "";
  std::string out = "<nav class=\"pages\">";
  if (newer) {
    out += Link(Url(path, args), "\xE2\x87\xA4 newest") + " " +
           Link(Url(path,
                    [&] {
                      UrlArgs a = args;
                      a.emplace_back("after", std::to_string(first));
                      return a;
                    }()),
                "\xE2\x86\x90 newer");
  }
  if (older) {
    if (newer) out += " ";
    UrlArgs a = args;
    a.emplace_back("before", std::to_string(last));
    out += Link(Url(path, a), "older \xE2\x86\x92");
  }
  return out + "</nav>\n";
}

}  // namespace awc::console
