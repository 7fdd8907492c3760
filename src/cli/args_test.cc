#include "cli/args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace awc::cli {
namespace {

using ::testing::ElementsAre;

const std::vector<Option> kOptions = {
    {"kind", "K", "a kind"},
    {"tag", "T", "repeatable", true},
    {"all", nullptr, "a flag"},
    {"help", nullptr, "help", false, 'h'},
    {"yes", nullptr, "yes", false, 'y'},
    {"database-url", "URL", "a database", false, 'd'},
    {"config", "FILE", "a file", false, 'c', true},
};

std::string Error(const std::vector<std::string>& args) {
  Result<ParsedArgs> p = ParseArgs(kOptions, args);
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : p.status().message();
}

TEST(ParseArgsTest, OptionsAnywhereJoinedOrSeparateAndDoubleDash) {
  Result<ParsedArgs> p =
      ParseArgs(kOptions, {"1", "--kind", "gc_sweep", "2", "--all", "--tag=a",
                           "--tag", "b", "--", "--kind", "-x"});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_THAT(p->positional, ElementsAre("1", "2", "--kind", "-x"));
  EXPECT_EQ(p->Get("kind"), "gc_sweep");
  EXPECT_TRUE(p->Has("all"));
  EXPECT_EQ(p->Get("all"), "");
  EXPECT_THAT(p->GetAll("tag"), ElementsAre("a", "b"));
  EXPECT_FALSE(p->Has("help"));
  EXPECT_EQ(p->Get("missing"), "");
}

TEST(ParseArgsTest, ShortHelpAndYesAndEmptyValues) {
  Result<ParsedArgs> p = ParseArgs(kOptions, {"-h", "-y", "--kind="});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Has("help"));
  EXPECT_TRUE(p->Has("yes"));
  EXPECT_TRUE(p->Has("kind"));
  EXPECT_EQ(p->Get("kind"), "");
}

// A letter stands for its option, a value following it; a letter-only
// option has no long name.
TEST(ParseArgsTest, LettersWithValues) {
  Result<ParsedArgs> p =
      ParseArgs(kOptions, {"-d", "host=x", "pos", "-c", "/etc/a.conf"});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->Get("database-url"), "host=x");
  EXPECT_EQ(p->Get("config"), "/etc/a.conf");
  EXPECT_THAT(p->positional, ElementsAre("pos"));
  EXPECT_EQ(Error({"--config", "/etc/a.conf"}), "unknown option --config");
  EXPECT_EQ(Error({"-d"}), "-d needs a value (URL)");
  EXPECT_EQ(Error({"-dx"}), "unknown option -dx");
  EXPECT_EQ(Error({"-d", "a", "--database-url=b"}),
            "--database-url is given more than once");
  // After "--", a letter is an argument.
  p = ParseArgs(kOptions, {"--", "-d", "x"});
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(p->positional, ElementsAre("-d", "x"));
}

TEST(ParseArgsTest, ErrorsNameTheOption) {
  EXPECT_EQ(Error({"--bogus"}), "unknown option --bogus");
  EXPECT_EQ(Error({"-x"}), "unknown option -x");
  EXPECT_EQ(Error({"--bogus=1"}), "unknown option --bogus");
  EXPECT_EQ(Error({"--kind"}), "--kind needs a value (K)");
  EXPECT_EQ(Error({"--all=1"}), "--all takes no value");
  EXPECT_EQ(Error({"--kind", "a", "--kind=b"}),
            "--kind is given more than once");
}

TEST(ParseArgsTest, CommonOptionsFollowTheCommand) {
  Command c{"x", "", "", "", {{"kind", "K", ""}}};
  c.json = true;
  std::vector<Option> all = AllOptions(c);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_STREQ(all[1].name, "json");
  EXPECT_STREQ(all[2].name, "help");
  c.changes = true;
  EXPECT_STREQ(AllOptions(c)[2].name, "yes");
}

TEST(ValuesTest, CountsIdsAndDurations) {
  EXPECT_EQ(*ParseCount("50", "--limit", 1, 100), 50);
  EXPECT_EQ(ParseCount("0", "--limit", 1, 100).status().message(),
            "--limit needs an integer from 1 to 100, not \"0\"");
  EXPECT_FALSE(ParseCount("1e3", "--limit", 1, 100000).ok());
  EXPECT_THAT(*ParseIds({"3", "12"}), ElementsAre(3, 12));
  EXPECT_EQ(ParseIds({"3", "x"}).status().message(), "\"x\" is not a job id");
  EXPECT_FALSE(ParseIds({"0"}).ok());
  EXPECT_FALSE(ParseIds({"-4"}).ok());
  EXPECT_FALSE(ParseIds({"+4"}).ok());
  EXPECT_DOUBLE_EQ(*ParseDuration("90"), 90);
  EXPECT_DOUBLE_EQ(*ParseDuration("90s"), 90);
  EXPECT_DOUBLE_EQ(*ParseDuration("15m"), 900);
  EXPECT_DOUBLE_EQ(*ParseDuration("12h"), 43200);
  EXPECT_DOUBLE_EQ(*ParseDuration("7d"), 604800);
  EXPECT_DOUBLE_EQ(*ParseDuration("2w"), 1209600);
  for (const char* bad : {"", "d", "0", "0d", "-1d", "1.5h", "1 h", "3y",
                          "12hh", "99999999999999d"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
  EXPECT_DOUBLE_EQ(*ParseDuration("36500d"), kMaxDurationSecs);
  for (const char* too_long : {"36501d", "999999999999", "999999999999w"}) {
    EXPECT_NE(ParseDuration(too_long).status().message().find(
                  "is longer than the longest duration accepted, 36500d"),
              std::string::npos)
        << too_long;
  }
  EXPECT_EQ(ParseDuration("3y").status().message(),
            "\"3y\" is not a duration (a whole number with s, m, h, d or w: "
            "90s, 15m, 12h, 7d, 2w)");
}

}  // namespace
}  // namespace awc::cli
