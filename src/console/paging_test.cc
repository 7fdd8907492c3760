#include "console/paging.h"

#include <gtest/gtest.h>

namespace awc::console {
namespace {

std::vector<int> Ids(int from, int to) {  // inclusive, in the given order
  std::vector<int> out;
  for (int i = from; from <= to ? i <= to : i >= to; i += from <= to ? 1 : -1) {
    out.push_back(i);
  }
  return out;
}

TEST(PagingTest, TheFirstPageAsksForOneRowMoreThanItShows) {
  PageRequest r;
  r.limit = 3;
  PageQuery q = PlanPage(r);
  EXPECT_FALSE(q.newer);
  EXPECT_EQ(q.cursor, INT64_MAX);
  EXPECT_EQ(q.fetch, 4);

  Page<int> page;
  FinishPage(r, q, Ids(10, 7), &page);  // 4 rows came: there are older ones
  EXPECT_EQ(page.rows, Ids(10, 8));
  EXPECT_TRUE(page.older);
  EXPECT_FALSE(page.newer);

  FinishPage(r, q, Ids(2, 1), &page);  // the last page
  EXPECT_EQ(page.rows, Ids(2, 1));
  EXPECT_FALSE(page.older);
  EXPECT_FALSE(page.newer);
}

TEST(PagingTest, OlderPagesStartBelowTheCursor) {
  PageRequest r;
  r.limit = 3;
  r.before = 8;
  PageQuery q = PlanPage(r);
  EXPECT_FALSE(q.newer);
  EXPECT_EQ(q.cursor, 8);
  Page<int> page;
  FinishPage(r, q, Ids(7, 5), &page);
  EXPECT_EQ(page.rows, Ids(7, 5));
  EXPECT_FALSE(page.older);
  EXPECT_TRUE(page.newer);
}

TEST(PagingTest, NewerPagesComeAscendingAndAreShownNewestFirst) {
  PageRequest r;
  r.limit = 3;
  r.after = 4;
  PageQuery q = PlanPage(r);
  EXPECT_TRUE(q.newer);
  EXPECT_EQ(q.cursor, 4);
  Page<int> page;
  FinishPage(r, q, Ids(5, 8), &page);  // 4 rows: more newer ones
  EXPECT_EQ(page.rows, Ids(7, 5));
  EXPECT_TRUE(page.newer);
  EXPECT_TRUE(page.older);
  FinishPage(r, q, Ids(5, 6), &page);  // the newest rows
  EXPECT_EQ(page.rows, Ids(6, 5));
  EXPECT_FALSE(page.newer);
}

TEST(PagingTest, LinksCarryTheFiltersAndTheCursor) {
  UrlArgs args = {{"state", "FAILED"}, {"kind", "a b"}};
  EXPECT_EQ(PageLinks("/jobs", args, false, false, 9, 5), "");
  EXPECT_EQ(PageLinks("/jobs", args, false, true, 9, 5),
            "<nav class=\"pages\"><a "
            "href=\"/jobs?state=FAILED&amp;kind=a%20b&amp;before=5\">older "
            "\xE2\x86\x92</a></nav>\n");
  std::string both = PageLinks("/jobs", args, true, true, 9, 5);
  EXPECT_NE(both.find("href=\"/jobs?state=FAILED&amp;kind=a%20b\">"),
            std::string::npos)
      << both;
  EXPECT_NE(both.find("href=\"/jobs?state=FAILED&amp;kind=a%20b&amp;after=9\">"
                      "\xE2\x86\x90 newer"),
            std::string::npos)
      << both;
  EXPECT_NE(both.find("before=5\">older"), std::string::npos) << both;
}

}  // namespace
}  // namespace awc::console
