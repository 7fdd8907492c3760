#include "http/query_string.h"

#include <gtest/gtest.h>

#include "common/percent_encode.h"

namespace awc::http {
namespace {

TEST(QueryStringTest, SplitsNamesAndValuesInOrder) {
  QueryArgs args = ParseQueryString("state=FAILED&kind=gc_sweep&state=x");
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0], (std::pair<std::string, std::string>("state", "FAILED")));
  EXPECT_EQ(args[1], (std::pair<std::string, std::string>("kind", "gc_sweep")));
  EXPECT_EQ(args[2], (std::pair<std::string, std::string>("state", "x")));
}

TEST(QueryStringTest, DecodesPlusAndPercent) {
  QueryArgs args = ParseQueryString("kind=%3Cscript%3E+a%2Bb&x=%e2%82%ac");
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].second, "<script> a+b");
  EXPECT_EQ(args[1].second, "\xe2\x82\xac");
}

TEST(QueryStringTest, KeepsMalformedEscapesAndSkipsEmptyPieces) {
  QueryArgs args = ParseQueryString("&a=%&b=%4&c=%zz&&d&e=");
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[0].second, "%");
  EXPECT_EQ(args[1].second, "%4");
  EXPECT_EQ(args[2].second, "%zz");
  EXPECT_EQ(args[3], (std::pair<std::string, std::string>("d", "")));
  EXPECT_EQ(args[4], (std::pair<std::string, std::string>("e", "")));
  EXPECT_TRUE(ParseQueryString("").empty());
}

TEST(QueryStringTest, DecodesNulAsAByte) {
  QueryArgs args = ParseQueryString("a=x%00y");
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].second, std::string("x\0y", 3));
}

TEST(QueryStringTest, QueryOfATarget) {
  EXPECT_EQ(QueryOf("/jobs?state=FAILED"), "state=FAILED");
  EXPECT_EQ(QueryOf("/jobs?a=1#frag"), "a=1");
  EXPECT_EQ(QueryOf("/jobs"), "");
  EXPECT_EQ(QueryOf("/jobs?"), "");
}

TEST(QueryStringTest, EncodeThenParseRoundTrips) {
  std::string hostile = "<script>alert(1)</script> & a+b=c%20";
  QueryArgs args = ParseQueryString("kind=" + PercentEncode(hostile));
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].second, hostile);
}

TEST(DecodePathTest, DecodesEveryEscapeAndKeepsPlusAndNul) {
  EXPECT_EQ(DecodePath("/a+b%2Fc%20d"), "/a+b/c d");
  EXPECT_EQ(DecodePath("/jobs/2%00zzz"), std::string("/jobs/2\0zzz", 11));
  EXPECT_EQ(DecodePath("/bad%zz%4"), "/bad%zz%4");
}

}  // namespace
}  // namespace awc::http
