// HTML for the console's pages (docs/console.md, "Console"): escaping,
// links, numbers, times and state badges. Every value that comes from the
// database or the request passes through Escape() before it is written
// into a page; the helpers below escape what they are given.
#ifndef AWC_CONSOLE_HTML_H_
#define AWC_CONSOLE_HTML_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace awc::console {

// `text` safe as element content and as a quoted attribute value: & < > "
// and ' become entities, NUL and other control characters but tab and
// newline become U+FFFD, and so does every byte sequence that is not
// well-formed UTF-8.
std::string Escape(std::string_view text);

// `path` with the query arguments whose value is not empty, each
// percent-encoded: Url("/jobs", {{"state", "FAILED"}, {"kind", ""}}) is
// "/jobs?state=FAILED". The result is a URL, not HTML: pass it to Link()
// or Escape() it.
using UrlArgs = std::vector<std::pair<std::string, std::string>>;
std::string Url(std::string_view path, const UrlArgs& args);

// <a href="url">text</a>, both escaped.
std::string Link(std::string_view url, std::string_view text);

// 1234567 as "1 234 567" (narrow no-break spaces between the groups).
std::string Count(int64_t n);

// A count that stops at `cap` (when cap > 0): one that reached it is a
// lower bound and reads "≥ 1 000"; any other is Count(n).
std::string CountUpTo(int64_t n, int64_t cap);

// A byte count in binary units: "0 B", "512 B", "1.5 KiB", "3.0 GiB".
std::string Bytes(int64_t n);

// A state as a coloured badge: <span class="st st-failed">FAILED</span>.
// Known states of jobs, snapshots, workspaces, GC epochs, workers and
// leases get their colour; anything else is shown plain.
std::string Badge(std::string_view state);

// The mark shown where a value is missing (an en dash, muted).
std::string None();

// A point in time as its distance from `now` ("3 min ago", "in 2 h"),
// with the absolute time on hover: <time datetime="..." title="...">.
// `iso` is "YYYY-MM-DDTHH:MM:SSZ"; "" gives None(). A time that does not
// parse is shown as it is.
std::string When(std::string_view iso, double now);

// An age in seconds computed by the database (a heartbeat's age), as
// "3 min ago", with the absolute time it goes back to, `now` - `secs`, on
// hover as When() has it; `now` is the page's clock. nullopt gives None().
std::string Age(std::optional<double> secs, double now);

// A digest shortened to "sha256:0123456789ab…" with the whole digest on
// hover; "" gives None().
std::string ShortDigest(std::string_view digest);

// A table: the header cells (plain text) and rows of cells (HTML, already
// escaped by the caller). `numeric` lists the columns to right-align,
// `wrap` those whose long texts may wrap. An empty table renders `empty`
// (plain text) instead.
struct Table {
  std::vector<std::string> headers;
  std::vector<size_t> numeric;
  std::vector<size_t> wrap;
  std::vector<std::vector<std::string>> rows;
  std::string empty = "none";

  void Add(std::vector<std::string> cells) { rows.push_back(std::move(cells)); }
  std::string Html() const;
};

}  // namespace awc::console

#endif  // AWC_CONSOLE_HTML_H_
