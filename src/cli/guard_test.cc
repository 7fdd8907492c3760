#include "cli/guard.h"

#include <gtest/gtest.h>

#include <deque>

namespace awc::cli {
namespace {

class FakeTerminal : public Terminal {
 public:
  bool interactive = true;
  std::deque<std::string> lines;
  std::string prompted;

  bool Interactive() override { return interactive; }
  void Prompt(std::string_view text) override { prompted += text; }
  std::optional<std::string> ReadLine() override {
    if (lines.empty()) return std::nullopt;
    std::string l = lines.front();
    lines.pop_front();
    return l;
  }
};

constexpr const char* kTarget = "postgresql://awc@db:5432/awc_prod";

TEST(GuardTest, TypingTheNameGoesOn) {
  FakeTerminal t;
  t.lines = {"awc_prod"};
  EXPECT_TRUE(ConfirmProduction(t, kTarget, "awc_prod", false).ok());
  EXPECT_EQ(t.prompted,
            "awcctl: postgresql://awc@db:5432/awc_prod is a production "
            "database; type its name (awc_prod) to go on: ");
  t.lines = {"awc_prod\r"};
  EXPECT_TRUE(ConfirmProduction(t, kTarget, "awc_prod", false).ok());
}

TEST(GuardTest, AnythingElseIsRefused) {
  for (std::deque<std::string> input : {std::deque<std::string>{"awc_pro"},
                                        {"AWC_PROD"},
                                        {""},
                                        {" awc_prod"},
                                        {"yes"},
                                        {}}) {
    FakeTerminal t;
    t.lines = input;
    Status s = ConfirmProduction(t, kTarget, "awc_prod", false);
    EXPECT_TRUE(s.IsFailedPrecondition());
    EXPECT_EQ(s.message(), "refused: the name typed is not \"awc_prod\"");
  }
}

TEST(GuardTest, WithoutATerminalOnlyYesGoesOn) {
  FakeTerminal t;
  t.interactive = false;
  t.lines = {"awc_prod"};
  Status s = ConfirmProduction(t, kTarget, "awc_prod", false);
  EXPECT_TRUE(s.IsFailedPrecondition());
  EXPECT_EQ(s.message(),
            "refused: postgresql://awc@db:5432/awc_prod is a production "
            "database and there is no terminal to confirm on; pass --yes to "
            "go on");
  EXPECT_EQ(t.prompted, "");
  EXPECT_TRUE(ConfirmProduction(t, kTarget, "awc_prod", true).ok());
  // --yes never asks, terminal or not.
  t.interactive = true;
  EXPECT_TRUE(ConfirmProduction(t, kTarget, "awc_prod", true).ok());
  EXPECT_EQ(t.prompted, "");
}

}  // namespace
}  // namespace awc::cli
