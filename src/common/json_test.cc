#include "common/json.h"

#include <gtest/gtest.h>

#include <string>

namespace awc {
namespace {

TEST(JsonTest, ParsesStrictlyAndNeverQuotesTheInput) {
  ASSERT_TRUE(ParseJson(R"({"a": [1, "x"]})").ok());
  Result<JsonPtr> dup = ParseJson(R"({"secret": 1, "secret": 2})");
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(dup.status().IsInvalidArgument());
  EXPECT_EQ(dup.status().message().find("secret"), std::string::npos)
      << dup.status().message();
  Result<JsonPtr> bad = ParseJson("{\"password-like\": ");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("not valid JSON (", 0), 0u)
      << bad.status().message();
  EXPECT_EQ(bad.status().message().find("password-like"), std::string::npos);
}

TEST(JsonTest, NulInsideStringsOnlyWhenAllowed) {
  std::string text = std::string("\"a") + "\\u0000" + "b\"";
  EXPECT_FALSE(ParseJson(text).ok());
  EXPECT_TRUE(ParseJson(text, /*allow_nul=*/true).ok());
}

TEST(JsonTest, ValidUtf8ReplacesEveryMalformedSequence) {
  EXPECT_EQ(ValidUtf8("plain é"), "plain é");
  EXPECT_EQ(ValidUtf8("a\xff"
                      "b"),
            "a\xEF\xBF\xBD"
            "b");  // a stray byte
  EXPECT_EQ(ValidUtf8("\xC0\xAF").find("\xC0"), std::string::npos)
      << "an overlong form is not UTF-8";
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80").find("\xED"), std::string::npos)
      << "a surrogate is not UTF-8";
  EXPECT_EQ(ValidUtf8("x\xE2\x82"), "x\xEF\xBF\xBD");  // truncated at the end
}

TEST(JsonTest, ObjectsKeepInsertionOrderAndEscapeStrings) {
  JsonObject inner;
  inner.Int("n", 1);
  JsonObject o;
  o.Str("z", ValidUtf8("quote \" and \xff"))
      .Int("a", -3)
      .Num("f", 0.5)
      .Bool("b", true)
      .Null("nil")
      .Strs("list", {"x", "y"})
      .Obj("inner", inner);
  EXPECT_EQ(o.Dump(),
            R"({"z":"quote \" and )"
            "\xEF\xBF\xBD"
            R"(","a":-3,"f":0.5,"b":true,"nil":null,"list":["x","y"],)"
            R"("inner":{"n":1}})");
  ASSERT_TRUE(ParseJson(o.Dump()).ok());
}

}  // namespace
}  // namespace awc
