#include "console/html.h"

#include <cstdio>

#include "catalog/states.h"
#include "common/enum_table.h"
#include "common/json.h"
#include "common/markup_escape.h"
#include "common/percent_encode.h"
#include "console/relative_time.h"
#include "http/query_string.h"
#include "queue/job.h"

namespace awc::console {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr const char* kNarrowSpace = "\xE2\x80\xAF";  // U+202F

// st-ok: done and well; st-wait: queued or planned; st-run: in progress;
// st-warn: needs a look; st-bad: failed; st-off: over or stopped. The
// states of queue/job.h and catalog/states.h have theirs by enum, so a
// state added there must be given one here.
const char* BadgeClass(queue::JobState state) {
  switch (state) {
    case queue::JobState::kPending:
      return "st-wait";
    case queue::JobState::kRunning:
      return "st-run";
    case queue::JobState::kCompleted:
      return "st-ok";
    case queue::JobState::kFailed:
      return "st-bad";
    case queue::JobState::kCancelled:
      return "st-off";
    case queue::JobState::kOther:
      break;
  }
  return nullptr;
}

const char* BadgeClass(catalog::SnapshotState state) {
  switch (state) {
    case catalog::SnapshotState::kValidating:
      return "st-wait";
    case catalog::SnapshotState::kReady:
      return "st-ok";
    case catalog::SnapshotState::kFailed:
      return "st-bad";
    case catalog::SnapshotState::kDegraded:
      return "st-warn";
    case catalog::SnapshotState::kReleased:
      return "st-off";
  }
  return nullptr;
}

const char* BadgeClass(catalog::WorkspaceState state) {
  switch (state) {
    case catalog::WorkspaceState::kActive:
      return "st-ok";
    case catalog::WorkspaceState::kExpiring:
      return "st-warn";
    case catalog::WorkspaceState::kExpired:
      return "st-off";
  }
  return nullptr;
}

const char* BadgeClass(catalog::ObjectState state) {
  switch (state) {
    case catalog::ObjectState::kLive:
      return "st-ok";
    case catalog::ObjectState::kDeleting:
      return "st-run";
  }
  return nullptr;
}

// The class of `state` in the table `rows`, or nullptr.
template <typename Row, size_t N>
const char* BadgeClassIn(const Row (&rows)[N], std::string_view state) {
  const Row* row = FindRowNamed(rows, state);
  return row != nullptr ? BadgeClass(row->value) : nullptr;
}

// The words of the GC epochs' states, the fleet and the scheduler, which
// have no table of their own.
struct WordClass {
  const char* word;
  const char* cls;
};
constexpr WordClass kWordBadges[] = {
    {"PLANNED", "st-wait"}, {"ABORTED", "st-bad"},  {"REFUSED", "st-warn"},
    {"idle", "st-ok"},      {"busy", "st-run"},     {"stopped", "st-off"},
    {"fresh", "st-ok"},     {"stale", "st-bad"},    {"held", "st-ok"},
    {"expired", "st-bad"},  {"paused", "st-warn"},  {"active", "st-ok"},
    {"yes", "st-warn"},     {"dry run", "st-wait"},
};

const char* BadgeClassOf(std::string_view state) {
  for (const char* cls : {BadgeClassIn(queue::kJobStates, state),
                          BadgeClassIn(catalog::kSnapshotStates, state),
                          BadgeClassIn(catalog::kWorkspaceStates, state),
                          BadgeClassIn(catalog::kObjectStates, state)}) {
    if (cls != nullptr) return cls;
  }
  for (const WordClass& w : kWordBadges) {
    if (state == w.word) return w.cls;
  }
  return nullptr;
}

// `text` as a <time> of `then`, with its absolute time on hover.
std::string TimeTag(double then, const std::string& text) {
  return "<time datetime=\"" + Escape(IsoUtc(then)) + "\" title=\"" +
         Escape(AbsoluteUtc(then)) + "\">" + Escape(text) + "</time>";
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string visible;
  for (char c : ValidUtf8(text)) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') ||
        c == 0x7f) {
      visible += kReplacement;
    } else {
      visible += c;
    }
  }
  return EscapeMarkup(visible);
}

std::string Url(std::string_view path, const UrlArgs& args) {
  std::string out(path);
  char sep = '?';
  for (const auto& [name, value] : args) {
    if (value.empty()) continue;
    out += sep;
    out += PercentEncode(name) + "=" + PercentEncode(value);
    sep = '&';
  }
  return out;
}

std::string Link(std::string_view url, std::string_view text) {
  return "<a href=\"" + Escape(url) + "\">" + Escape(text) + "</a>";
}

std::string Count(int64_t n) {
  std::string digits =
      std::to_string(n < 0 ? -(n + 1) + 1ULL : static_cast<uint64_t>(n));
  std::string out = n < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += kNarrowSpace;
    out += digits[i];
  }
  return out;
}

std::string CountUpTo(int64_t n, int64_t cap) {
  if (cap > 0 && n >= cap) return "\xE2\x89\xA5 " + Count(cap);  // U+2265
  return Count(n);
}

std::string Bytes(int64_t n) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB",
                                       "TiB", "PiB", "EiB"};
  if (n < 1024) return std::to_string(n) + " B";
  double v = static_cast<double>(n);
  int unit = -1;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

std::string Badge(std::string_view state) {
  if (const char* cls = BadgeClassOf(state)) {
    return std::string("<span class=\"st ") + cls + "\">" + Escape(state) +
           "</span>";
  }
  return "<span class=\"st\">" + Escape(state) + "</span>";
}

std::string None() { return "<span class=\"none\">\xE2\x80\x93</span>"; }

std::string When(std::string_view iso, double now) {
  if (iso.empty()) return None();
  std::optional<double> then = ParseIsoUtc(iso);
  if (!then) return Escape(iso);
  return TimeTag(*then, Relative(*then, now));
}

std::string Age(std::optional<double> secs, double now) {
  if (!secs) return None();
  return TimeTag(now - *secs,
                 *secs < 1 ? "just now" : Duration(*secs) + " ago");
}

std::string ShortDigest(std::string_view digest) {
  if (digest.empty()) return None();
  constexpr size_t kShown = 7 + 12;  // "sha256:" and 12 hex digits
  if (digest.size() <= kShown + 1) {
    return "<code>" + Escape(digest) + "</code>";
  }
  return "<code title=\"" + Escape(digest) + "\">" +
         Escape(digest.substr(0, kShown)) + "\xE2\x80\xA6</code>";
}

std::string Table::Html() const {
  if (rows.empty()) return "<p class=\"none\">" + Escape(empty) + "</p>\n";
  auto has = [](const std::vector<size_t>& cols, size_t col) {
    for (size_t n : cols) {
      if (n == col) return true;
    }
    return false;
  };
  auto open = [&](const char* tag, size_t col) {
    if (has(numeric, col)) return std::string("<") + tag + " class=\"n\">";
    if (has(wrap, col)) return std::string("<") + tag + " class=\"wrap\">";
    return std::string("<") + tag + ">";
  };
  std::string out = "<table>\n<thead><tr>";
  for (size_t i = 0; i < headers.size(); ++i) {
    out += open("th", i) + Escape(headers[i]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      out += open("td", i) + row[i] + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace awc::console
