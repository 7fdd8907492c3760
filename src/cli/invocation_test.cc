#include "cli/invocation.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "common/redact.h"

namespace awc::cli {
namespace {

TEST(WithDatabaseUrlTest, ReplacesTheUrlAndHidesItsFile) {
  std::map<std::string, std::string> env = {
      {"DATABASE_URL", "postgresql://a/x"},
      {"DATABASE_URL_FILE", "/run/secret"},
      {"AWC_CAS_URL", "memory://"}};
  config::EnvLookup base = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  config::EnvLookup with = WithDatabaseUrl(base, "postgresql://b/y");
  EXPECT_STREQ(with("DATABASE_URL"), "postgresql://b/y");
  EXPECT_EQ(with("DATABASE_URL_FILE"), nullptr);
  EXPECT_STREQ(with("AWC_CAS_URL"), "memory://");
  EXPECT_EQ(with("AWC_OTHER"), nullptr);
}

class InvocationTest : public ::testing::Test {
 protected:
  InvocationTest() : err_(tmpfile()) {
    command_.name = "jobs list";
    command_.args = "[--state S]";
    io_.err = err_;
    io_.env = [](const char*) -> const char* { return nullptr; };
  }
  ~InvocationTest() override { fclose(err_); }

  std::string Err() {
    fflush(err_);
    rewind(err_);
    std::string s;
    char buf[1024];
    for (size_t n; (n = fread(buf, 1, sizeof buf, err_)) > 0;) s.append(buf, n);
    return s;
  }

  Command command_{};
  FILE* err_;
  Io io_;
};

TEST_F(InvocationTest, UsageAndFailPrintAndReturnTheirCodes) {
  Invocation inv(command_, Globals(), ParsedArgs(), io_);
  EXPECT_EQ(inv.Usage("--state is wrong"), kExitUsage);
  EXPECT_EQ(Err(),
            "awcctl: --state is wrong\nusage: awcctl jobs list [--state S]\n"
            "(awcctl jobs list --help for more)\n");
  EXPECT_EQ(inv.Fail(Status::Internal("boom")), kExitError);
}

TEST_F(InvocationTest, DashDIsTheDatabaseUrlAndItsPasswordASecret) {
  Globals g;
  g.database_url = "postgresql://u:Dash-D-Secret@db.example/awc";
  Invocation inv(command_, g, ParsedArgs(), io_);
  Result<const config::Settings*> s = inv.Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->database_url, *g.database_url);
  inv.Note("x Dash-D-Secret y");
  EXPECT_EQ(Err(), "awcctl: x ******** y\n");
}

// A line is scrubbed before it is made one line: a secret that holds a
// control character is still found.
TEST_F(InvocationTest, ANoteIsScrubbedThenOneLine) {
  ClearSecrets();
  RegisterSecret("Tab\tSecret-7");
  Invocation inv(command_, Globals(), ParsedArgs(), io_);
  inv.Note("x Tab\tSecret-7 y\x1b[2J");
  EXPECT_EQ(inv.Usage("z Tab\tSecret-7"), kExitUsage);
  EXPECT_EQ(Err(),
            "awcctl: x ******** y [2J\n"
            "awcctl: z ********\nusage: awcctl jobs list [--state S]\n"
            "(awcctl jobs list --help for more)\n");
  ClearSecrets();
}

TEST_F(InvocationTest, ConnectNeedsADatabaseUrl) {
  Invocation inv(command_, Globals(), ParsedArgs(), io_);
  Result<db::PgConn*> conn = inv.Connect({});
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().message(), "DATABASE_URL is not set");
  EXPECT_EQ(inv.Fail(conn.status()), kExitError);
}

TEST_F(InvocationTest, JsonAndYesFromEitherPlace) {
  ParsedArgs args;
  args.options["json"] = {""};
  Invocation a(command_, Globals(), args, io_);
  EXPECT_TRUE(a.json());
  EXPECT_FALSE(a.yes());
  Globals g;
  g.yes = true;
  Invocation b(command_, g, ParsedArgs(), io_);
  EXPECT_TRUE(b.yes());
  EXPECT_FALSE(b.json());
}

}  // namespace
}  // namespace awc::cli
