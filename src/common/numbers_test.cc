#include "common/numbers.h"

#include <gtest/gtest.h>

#include <string>

namespace awc {
namespace {

std::string Error(std::string_view text) {
  Result<int64_t> r = ParseInt64(text);
  return r.ok() ? "" : r.status().message();
}

TEST(NumbersTest, ParsesDecimalIntegersWithAnOptionalSign) {
  EXPECT_EQ(*ParseInt64("0"), 0);
  EXPECT_EQ(*ParseInt64("42"), 42);
  EXPECT_EQ(*ParseInt64("+7"), 7);
  EXPECT_EQ(*ParseInt64("-5"), -5);
  EXPECT_EQ(*ParseInt64("007"), 7);
  EXPECT_EQ(*ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(*ParseInt64("-9223372036854775808"), INT64_MIN);
}

TEST(NumbersTest, RefusesAnythingElseQuotingTheText) {
  EXPECT_EQ(Error(""), "empty value");
  EXPECT_EQ(Error("four"), "\"four\" is not an integer");
  for (const char* bad : {" 5", "5 ", "5x", "0x10", "1e3", "1.0", "+", "-",
                          "--1", "+-1", "\t7"}) {
    EXPECT_EQ(Error(bad), "\"" + std::string(bad) + "\" is not an integer")
        << bad;
  }
  EXPECT_EQ(Error("9223372036854775808"),
            "\"9223372036854775808\" is too large");
  EXPECT_EQ(Error("-99999999999999999999"),
            "\"-99999999999999999999\" is too large");
}

TEST(NumbersTest, ReadsOnlyTheGivenView) {
  std::string_view head = std::string_view("123456").substr(0, 3);
  EXPECT_EQ(*ParseInt64(head), 123);
}

TEST(NumbersTest, SecondsTextHasThreeDecimals) {
  EXPECT_EQ(SecondsText(0), "0.000");
  EXPECT_EQ(SecondsText(1.5), "1.500");
  EXPECT_EQ(SecondsText(300), "300.000");
  EXPECT_EQ(SecondsText(0.0004), "0.000");
  EXPECT_EQ(SecondsText(86400.25), "86400.250");
}

}  // namespace
}  // namespace awc
