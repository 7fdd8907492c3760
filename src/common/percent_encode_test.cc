#include "common/percent_encode.h"

#include <gtest/gtest.h>

#include <string>

namespace awc {
namespace {

TEST(PercentEncodeTest, KeepsOnlyUnreservedBytes) {
  EXPECT_EQ(PercentEncode("abc-._~XYZ09"), "abc-._~XYZ09");
  EXPECT_EQ(PercentEncode("a b&c=d/<\"'>"), "a%20b%26c%3Dd%2F%3C%22%27%3E");
  EXPECT_EQ(PercentEncode(std::string("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(PercentEncode(""), "");
}

TEST(PercentEncodeTest, KeepsSlashesOnlyWhenAsked) {
  EXPECT_EQ(PercentEncode("a/b c", true), "a/b%20c");
  EXPECT_EQ(PercentEncode("a/b c", false), "a%2Fb%20c");
  EXPECT_EQ(PercentEncode("a b/c+d=e&f"), "a%20b%2Fc%2Bd%3De%26f");
  EXPECT_EQ(PercentEncode("\xC3\xA9*", true), "%C3%A9%2A");
}

}  // namespace
}  // namespace awc
