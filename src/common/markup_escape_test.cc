#include "common/markup_escape.h"

#include <gtest/gtest.h>

#include <string>

namespace awc {
namespace {

TEST(EscapeMarkupTest, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(EscapeMarkup("a&b<c>\"d'"), "a&amp;b&lt;c&gt;&quot;d&#39;");
  EXPECT_EQ(EscapeMarkup("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;");
}

TEST(EscapeMarkupTest, KeepsEveryOtherByte) {
  const char raw[] = "plain \t\n\x01\x7f\xff text";
  std::string bytes(raw, sizeof raw - 1);
  EXPECT_EQ(EscapeMarkup(bytes), bytes);
  EXPECT_EQ(EscapeMarkup(""), "");
}

}  // namespace
}  // namespace awc
