#include "console/html.h"

#include <gtest/gtest.h>

#include "catalog/states.h"
#include "queue/job.h"

namespace awc::console {
namespace {

constexpr const char* kHostile = "<script>alert(1)</script>";

TEST(HtmlTest, EscapesMarkupAndQuotes) {
  EXPECT_EQ(Escape(kHostile), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(Escape("a & b \"c\" 'd'"), "a &amp; b &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(Escape("&amp;"), "&amp;amp;");
  EXPECT_EQ(Escape("plain text, UTF-8: \xE2\x82\xAC"),
            "plain text, UTF-8: \xE2\x82\xAC");
}

TEST(HtmlTest, ReplacesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(Escape(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(Escape("a\x1b[31mb"), "a\xEF\xBF\xBD[31mb");
  EXPECT_EQ(Escape("tab\tline\n"), "tab\tline\n");
  EXPECT_EQ(Escape("\xff<"), "\xEF\xBF\xBD&lt;");
  EXPECT_EQ(Escape("\x7f"), "\xEF\xBF\xBD");
}

TEST(HtmlTest, UrlsEncodeTheirArgumentsAndSkipEmptyOnes) {
  EXPECT_EQ(Url("/jobs", {}), "/jobs");
  EXPECT_EQ(Url("/jobs", {{"state", "FAILED"}, {"kind", ""}}),
            "/jobs?state=FAILED");
  EXPECT_EQ(Url("/jobs", {{"kind", kHostile}, {"before", "12"}}),
            "/jobs?kind=%3Cscript%3Ealert%281%29%3C%2Fscript%3E&before=12");
  EXPECT_EQ(Url("/x", {{"a", "b&c=d e\"f"}}), "/x?a=b%26c%3Dd%20e%22f");
}

TEST(HtmlTest, LinksEscapeUrlAndText) {
  EXPECT_EQ(Link("/jobs?a=1&b=2", kHostile),
            "<a href=\"/jobs?a=1&amp;b=2\">&lt;script&gt;alert(1)&lt;/"
            "script&gt;</a>");
  EXPECT_EQ(Link("\" onmouseover=\"x", "t"),
            "<a href=\"&quot; onmouseover=&quot;x\">t</a>");
}

TEST(HtmlTest, CountsGroupThousands) {
  const std::string s = "\xE2\x80\xAF";
  EXPECT_EQ(Count(0), "0");
  EXPECT_EQ(Count(999), "999");
  EXPECT_EQ(Count(1000), "1" + s + "000");
  EXPECT_EQ(Count(1234567), "1" + s + "234" + s + "567");
  EXPECT_EQ(Count(-1234), "-1" + s + "234");
  EXPECT_EQ(Count(INT64_MIN), "-9" + s + "223" + s + "372" + s + "036" + s +
                                  "854" + s + "775" + s + "808");
}

TEST(HtmlTest, BytesInBinaryUnits) {
  EXPECT_EQ(Bytes(0), "0 B");
  EXPECT_EQ(Bytes(1023), "1023 B");
  EXPECT_EQ(Bytes(1536), "1.5 KiB");
  EXPECT_EQ(Bytes(3LL << 30), "3.0 GiB");
  EXPECT_EQ(Bytes(INT64_MAX), "8.0 EiB");
}

TEST(HtmlTest, BadgesColourKnownStatesAndEscapeOthers) {
  EXPECT_EQ(Badge("FAILED"), "<span class=\"st st-bad\">FAILED</span>");
  EXPECT_EQ(Badge("COMPLETED"), "<span class=\"st st-ok\">COMPLETED</span>");
  EXPECT_EQ(Badge("PENDING"), "<span class=\"st st-wait\">PENDING</span>");
  EXPECT_EQ(Badge("RUNNING"), "<span class=\"st st-run\">RUNNING</span>");
  EXPECT_EQ(Badge("DEGRADED"), "<span class=\"st st-warn\">DEGRADED</span>");
  EXPECT_EQ(Badge("stale"), "<span class=\"st st-bad\">stale</span>");
  EXPECT_EQ(Badge(kHostile),
            "<span class=\"st\">&lt;script&gt;alert(1)&lt;/script&gt;</span>");
}

// Every state of the tables in queue/job.h and catalog/states.h has its
// colour.
TEST(HtmlTest, EveryStateOfTheTablesHasABadgeClass) {
  auto check = [](const auto& rows) {
    for (const auto& row : rows) {
      EXPECT_TRUE(Badge(row.name).starts_with("<span class=\"st st-"))
          << row.name;
    }
  };
  check(queue::kJobStates);
  check(catalog::kSnapshotStates);
  check(catalog::kWorkspaceStates);
  check(catalog::kObjectStates);
  EXPECT_EQ(Badge("DELETING"), "<span class=\"st st-run\">DELETING</span>");
  EXPECT_EQ(Badge("EXPIRED"), "<span class=\"st st-off\">EXPIRED</span>");
  EXPECT_EQ(Badge("expired"), "<span class=\"st st-bad\">expired</span>");
}

TEST(HtmlTest, TimesAreRelativeWithTheAbsoluteTimeOnHover) {
  double now = 1796031896;  // 2026-11-30T09:44:56Z
  EXPECT_EQ(When("2026-11-30T09:41:56Z", now),
            "<time datetime=\"2026-11-30T09:41:56Z\" "
            "title=\"2026-11-30 09:41:56 UTC\">3 min ago</time>");
  EXPECT_EQ(When("2026-11-30T11:44:56Z", now),
            "<time datetime=\"2026-11-30T11:44:56Z\" "
            "title=\"2026-11-30 11:44:56 UTC\">in 2 h</time>");
  EXPECT_EQ(When("", now), "<span class=\"none\">\xE2\x80\x93</span>");
  EXPECT_EQ(When("<b>soon</b>", now), "&lt;b&gt;soon&lt;/b&gt;");
  EXPECT_EQ(None(), "<span class=\"none\">\xE2\x80\x93</span>");
}

TEST(HtmlTest, AgesShowTheTimeTheyGoBackToOnHover) {
  double now = 1796031896;  // 2026-11-30T09:44:56Z
  EXPECT_EQ(Age(42.5, now),
            "<time datetime=\"2026-11-30T09:44:13Z\" "
            "title=\"2026-11-30 09:44:13 UTC\">42 s ago</time>");
  EXPECT_EQ(Age(3 * 3600 + 60, now),
            "<time datetime=\"2026-11-30T06:43:56Z\" "
            "title=\"2026-11-30 06:43:56 UTC\">3 h ago</time>");
  EXPECT_EQ(Age(0.2, now),
            "<time datetime=\"2026-11-30T09:44:55Z\" "
            "title=\"2026-11-30 09:44:55 UTC\">just now</time>");
  EXPECT_EQ(Age(std::nullopt, now), None());
}

TEST(HtmlTest, CappedCountsReadAsLowerBounds) {
  EXPECT_EQ(CountUpTo(999, 1000), "999");
  EXPECT_EQ(CountUpTo(1000, 1000), "\xE2\x89\xA5 " + Count(1000));
  EXPECT_EQ(CountUpTo(12345, 0), Count(12345));
}

TEST(HtmlTest, DigestsAreShortenedWithTheWholeOnHover) {
  std::string d = "sha256:" + std::string(64, 'a');
  EXPECT_EQ(ShortDigest(d), "<code title=\"" + d + "\">sha256:" +
                                std::string(12, 'a') + "\xE2\x80\xA6</code>");
  EXPECT_EQ(ShortDigest("<x>"), "<code>&lt;x&gt;</code>");
}

TEST(HtmlTest, TablesAlignNumbersAndShowEmptyText) {
  Table t;
  t.headers = {"kind", "count", "error"};
  t.numeric = {1};
  t.wrap = {2};
  t.empty = "no <rows>";
  EXPECT_EQ(t.Html(), "<p class=\"none\">no &lt;rows&gt;</p>\n");
  t.Add({"a", "1", "e"});
  EXPECT_EQ(t.Html(),
            "<table>\n<thead><tr><th>kind</th><th class=\"n\">count</th>"
            "<th class=\"wrap\">error</th></tr></thead>\n<tbody>\n"
            "<tr><td>a</td><td class=\"n\">1</td><td class=\"wrap\">e</td>"
            "</tr>\n</tbody>\n</table>\n");
}

}  // namespace
}  // namespace awc::console
