// awcctl's targeting and safety: the target line for every form a password
// can take (never the password), awcctl serve's line and pages, -d,
// DATABASE_URL_FILE and url_file, the production guard with and without a
// terminal, read-only sessions for the verbs that only read, exit codes,
// and --help for every verb.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

#include "cli/invocation.h"
#include "handlers/registry.h"
#include "tests/support/console_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

std::string Password() {
  const char* pw = getenv("PGPASSWORD");
  return pw != nullptr ? pw : "";
}

std::string Host() {
  const char* h = getenv("PGHOST");
  return h != nullptr ? h : "localhost";
}

std::string Port() {
  const char* p = getenv("PGPORT");
  return p != nullptr ? p : "5432";
}

std::string User() {
  const char* u = getenv("PGUSER");
  return u != nullptr ? u : "postgres";
}

// This process's environment has the cluster's PGPASSWORD; a child that
// must not find it gets it emptied.
const std::pair<std::string, std::string> kNoPgPassword = {"PGPASSWORD", ""};

class AwcctlTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(Password().empty()) << "the tests need PGPASSWORD";
    db_.Migrate();
  }

  // What every target line of this database reads.
  std::string Target() const {
    return "awcctl: target postgresql://" + User() + "@" + Host() + ":" +
           Port() + "/" + db_.name() + "\n";
  }

  void ExpectTargetWithoutPassword(const CommandResult& r,
                                   const std::string& form) {
    EXPECT_EQ(r.code, 0) << form << ": " << r.err;
    EXPECT_TRUE(r.err.starts_with(Target())) << form << ": " << r.err;
    EXPECT_EQ(r.err.find(Password()), std::string::npos) << form;
    EXPECT_EQ(r.out.find(Password()), std::string::npos) << form;
  }

  TestDatabase db_;
};

TEST_F(AwcctlTargetTest, TheTargetLineNeverShowsThePasswordWhateverItsForm) {
  const std::string base =
      "postgresql://" + User() + "@" + Host() + ":" + Port() + "/" + db_.name();
  // URL user info.
  ExpectTargetWithoutPassword(
      RunAwcctl({"jobs"}, {{"DATABASE_URL", db_.url()}, kNoPgPassword}),
      "user info");
  // A password= query parameter.
  ExpectTargetWithoutPassword(
      RunAwcctl({"jobs"}, {{"DATABASE_URL", base + "?password=" + Password()},
                           kNoPgPassword}),
      "query parameter");
  // key=value.
  ExpectTargetWithoutPassword(
      RunAwcctl({"jobs"},
                {{"DATABASE_URL",
                  "host=" + Host() + " port=" + Port() + " user=" + User() +
                      " password=" + Password() + " dbname=" + db_.name()},
                 kNoPgPassword}),
      "key=value");
  // PGPASSWORD, with a URL that has none.
  ExpectTargetWithoutPassword(RunAwcctl({"jobs"}, {{"DATABASE_URL", base}}),
                              "PGPASSWORD");
  // -d, in each form too.
  ExpectTargetWithoutPassword(
      RunAwcctl({"-d", db_.url(), "jobs"}, {kNoPgPassword}), "-d");
  ExpectTargetWithoutPassword(
      RunAwcctl({"--database-url=" + base + "?password=" + Password(), "jobs"},
                {kNoPgPassword}),
      "--database-url=");
}

// awcctl serve, which runs until it is stopped, starts with the same line,
// and its pages name the target without the password too.
TEST_F(AwcctlTargetTest, ServeShowsTheTargetWithoutThePassword) {
  ConsoleProcess console(db_);  // DATABASE_URL with the password in it
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  std::string err = console.process().Stderr();
  EXPECT_TRUE(err.starts_with(Target())) << err;
  EXPECT_EQ(err.find(Password()), std::string::npos) << err;
  HttpReply page = console.Get("/");
  ASSERT_EQ(page.status, 200);
  std::string url = Target().substr(std::string("awcctl: target ").size());
  url.pop_back();  // the newline
  EXPECT_NE(page.body.find(url), std::string::npos) << page.body;
  EXPECT_EQ(page.body.find(Password()), std::string::npos);
}

// The target line comes before the connection: against a database that
// is down, the operator still sees where awcctl tried.
TEST_F(AwcctlTargetTest,
       TheTargetIsNamedBeforeConnectingToADatabaseThatIsDown) {
  CommandResult r = RunAwcctl(
      {"health"},
      {{"DATABASE_URL",
        "postgresql://nobody:SECRETPW@127.0.0.1:1/down_db?connect_timeout=2"}});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(r.err.starts_with(
      "awcctl: target postgresql://nobody@127.0.0.1:1/down_db\n"))
      << r.err;
  EXPECT_EQ(r.err.find("SECRETPW"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("SECRETPW"), std::string::npos) << r.out;
  // Reached as named: one target line and no "connected to".
  CommandResult up = RunAwcctl({"health"}, {{"DATABASE_URL", db_.url()}});
  EXPECT_TRUE(up.err.starts_with(Target())) << up.err;
  EXPECT_EQ(up.err.find("connected to"), std::string::npos) << up.err;
}

TEST_F(AwcctlTargetTest, DashDOverridesTheSettings) {
  // DATABASE_URL points at a database that does not exist; -d wins.
  Env env = {{"DATABASE_URL", ClusterUrl("no_such_database_x")}};
  CommandResult r = RunAwcctl({"-d", db_.url(), "jobs"}, env);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.starts_with(Target())) << r.err;
  CommandResult without = RunAwcctl({"jobs"}, env);
  EXPECT_EQ(without.code, 1);
  EXPECT_NE(without.err.find("database connection failed"), std::string::npos)
      << without.err;
  // -d also hides DATABASE_URL_FILE, which would otherwise be an error.
  TempDir dir;
  dir.Write("url", ClusterUrl("no_such_database_x") + "\n");
  r = RunAwcctl({"--database-url", db_.url(), "jobs"},
                {{"DATABASE_URL_FILE", dir.path() + "/url"}});
  EXPECT_EQ(r.code, 0) << r.err;
  // Usage errors of the option itself.
  CommandResult bare = RunAwcctl({"-d"}, {});
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.err.find("-d needs a URL"), std::string::npos) << bare.err;
}

TEST_F(AwcctlTargetTest, TheUrlComesFromAFileTooAndStaysSecret) {
  TempDir dir;
  dir.Write("database-url", db_.url() + "\n");
  ExpectTargetWithoutPassword(
      RunAwcctl({"jobs"}, {{"DATABASE_URL_FILE", dir.path() + "/database-url"},
                           kNoPgPassword}),
      "DATABASE_URL_FILE");
  dir.Write("awc.conf",
            "[database]\nurl_file = " + dir.path() + "/database-url\n");
  ExpectTargetWithoutPassword(
      RunAwcctl({"-c", dir.path() + "/awc.conf", "jobs"}, {kNoPgPassword}),
      "url_file");
  // Not a regular file: refused, naming the setting and the path.
  CommandResult not_file =
      RunAwcctl({"jobs"}, {{"DATABASE_URL_FILE", dir.path()}});
  EXPECT_EQ(not_file.code, 1);
  EXPECT_EQ(not_file.err, "awcctl: DATABASE_URL_FILE: cannot open \"" +
                              dir.path() +
                              "\": not a regular file (a directory)\n");
  // The daemon reads it the same way.
  CommandResult t =
      RunProcess(ShippedDaemonPath(), {"-t"},
                 {{"DATABASE_URL_FILE", dir.path() + "/database-url"},
                  {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("DATABASE_URL = postgresql://" + User() + ":********@"),
            std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find(Password()), std::string::npos);
}

// --- The production guard --------------------------------------------------

class ProductionGuardTest : public AwcctlTargetTest {
 protected:
  Env Production() const {
    return {{"DATABASE_URL", db_.url()}, {"AWC_PRODUCTION", "1"}};
  }
  int64_t Jobs() { return db_.Int("SELECT count(*) FROM awc.jobs"); }
};

TEST_F(ProductionGuardTest, WithoutATerminalAChangeIsRefusedUnlessYes) {
  CommandResult r = RunAwcctl({"enqueue", "gc_sweep", R"({"tenant_id": "t1"})"},
                              Production());
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err, Target() + "awcctl: refused: postgresql://" + User() + "@" +
                       Host() + ":" + Port() + "/" + db_.name() +
                       " is a production database and there is no terminal "
                       "to confirm on; pass --yes to go on\n");
  EXPECT_EQ(Jobs(), 0);
  // Every verb that changes something is guarded.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"migrate"},
           {"jobs", "cancel", "1"},
           {"jobs", "retry", "1"},
           {"dlq", "retry", "--all"},
           {"dlq", "purge", "--all"},
           {"import", "--tenant", "t1", "/tmp"}}) {
    CommandResult g = RunAwcctl(args, Production());
    EXPECT_EQ(g.code, 3) << ::testing::PrintToString(args) << g.err;
  }
  // --yes, after the verb or before it.
  r = RunAwcctl({"enqueue", "gc_sweep", R"({"tenant_id": "t1"})", "--yes"},
                Production());
  EXPECT_EQ(r.code, 0) << r.err;
  r = RunAwcctl({"-y", "enqueue", "gc_sweep", R"({"tenant_id": "t1"})"},
                Production());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Jobs(), 2);
}

TEST_F(ProductionGuardTest, TheIniFileMarksProductionToo) {
  TempDir dir;
  dir.Write("awc.conf", "[database]\nproduction = true\n");
  CommandResult r = RunAwcctl({"-c", dir.path() + "/awc.conf", "enqueue",
                               "gc_sweep", R"({"tenant_id": "t1"})"},
                              {{"DATABASE_URL", db_.url()}});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(Jobs(), 0);
}

TEST_F(ProductionGuardTest, OnATerminalTheDatabaseNameMustBeTyped) {
  const std::string prompt = "to go on: ";
  CommandResult right = RunOnTerminal(
      AwcctlPath(), {"enqueue", "gc_sweep", R"({"tenant_id": "t1"})"},
      Production(), prompt, db_.name());
  EXPECT_EQ(right.code, 0) << right.out;
  EXPECT_NE(right.out.find("is a production database; type its name (" +
                           db_.name() + ") to go on: "),
            std::string::npos)
      << right.out;
  EXPECT_EQ(Jobs(), 1);
  EXPECT_EQ(right.out.find(Password()), std::string::npos);

  CommandResult wrong = RunOnTerminal(
      AwcctlPath(), {"enqueue", "gc_sweep", R"({"tenant_id": "t1"})"},
      Production(), prompt, "postgres");
  EXPECT_EQ(wrong.code, 3) << wrong.out;
  EXPECT_NE(
      wrong.out.find("refused: the name typed is not \"" + db_.name() + "\""),
      std::string::npos)
      << wrong.out;
  EXPECT_EQ(Jobs(), 1);

  // --yes does not ask, even on a terminal.
  CommandResult yes = RunOnTerminal(
      AwcctlPath(), {"enqueue", "gc_sweep", R"({"tenant_id": "t1"})", "--yes"},
      Production(), "", "");
  EXPECT_EQ(yes.code, 0) << yes.out;
  EXPECT_EQ(yes.out.find("type its name"), std::string::npos) << yes.out;
  EXPECT_EQ(Jobs(), 2);
}

TEST_F(ProductionGuardTest, ReadOnlyVerbsNeverAsk) {
  db_.Exec("INSERT INTO awc.jobs (kind, state) VALUES ('k', 'FAILED')");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"jobs"},
           {"jobs", "show", "1"},
           {"dlq", "list"},
           {"dlq", "retry", "--all", "--dry-run"},
           {"dlq", "purge", "--all", "--dry-run"},
           {"health"},
           {"workers"},
           {"stats"},
           {"schedules"},
           {"schedules", "list"},
           {"migrate", "--status"},
           {"migrate", "--dry-run"},
           {"migrate", "--sql", "--pending"}}) {
    CommandResult r = RunOnTerminal(AwcctlPath(), args, Production(), "", "");
    EXPECT_EQ(r.code, 0) << ::testing::PrintToString(args) << r.out;
    EXPECT_EQ(r.out.find("type its name"), std::string::npos) << r.out;
    CommandResult piped = RunAwcctl(args, Production());
    EXPECT_EQ(piped.code, 0) << ::testing::PrintToString(args) << piped.err;
  }
  EXPECT_EQ(db_.JobState(1), "FAILED");
  // Listing the schedules shows the built-in ones without creating them.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules"), 0);
}

// Invocation::Connect's step 5: the session of a verb that does not change
// the database refuses writes; a verb that changes it may write.
TEST_F(AwcctlTargetTest, TheSessionOfAVerbThatOnlyReadsCannotWrite) {
  std::string url = db_.url();
  cli::Command command{};
  command.name = "jobs list";
  FILE* err = tmpfile();
  ASSERT_NE(err, nullptr);
  cli::Io io;
  io.err = err;
  io.env = [&url](const char* name) -> const char* {
    return strcmp(name, "DATABASE_URL") == 0 ? url.c_str() : nullptr;
  };
  cli::Invocation inv(command, cli::Globals(), cli::ParsedArgs(), io);
  const char* kWrite = "INSERT INTO awc.tenants (id) VALUES ('t1')";

  Result<db::PgConn*> read = inv.Connect({});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  Result<db::PgResult> refused = (*read)->Exec(kWrite);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("read-only transaction"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.tenants"), 0);

  Result<db::PgConn*> change = inv.Connect({.changes = true});
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_TRUE((*change)->Exec(kWrite).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.tenants"), 1);

  // And back: the same session is read-only again.
  read = inv.Connect({});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(
      (*read)->Exec("INSERT INTO awc.tenants (id) VALUES ('t2')").ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.tenants"), 1);
  fclose(err);
}

// --- Help and usage --------------------------------------------------------

// The commands `awcctl help` lists: "jobs list", "migrate", ...
std::vector<std::string> ListedCommands() {
  CommandResult help = RunAwcctl({"help"}, {});
  std::vector<std::string> out;
  std::istringstream in(help.out);
  std::regex row(R"(^  ([a-z]+( [a-z]+)?)( .*)?$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.starts_with("      ")) continue;
    if (std::regex_match(line, m, row)) out.push_back(m[1]);
  }
  return out;
}

std::vector<std::string> Split(const std::string& words) {
  std::vector<std::string> out;
  std::istringstream in(words);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(AwcctlHelpTest, EveryVerbHasHelpAndNeedsNoDatabaseForIt) {
  std::vector<std::string> commands = ListedCommands();
  for (const char* expected :
       {"migrate", "roles", "health", "workers", "stats", "jobs list",
        "jobs show", "jobs cancel", "jobs retry", "dlq list", "dlq retry",
        "dlq purge", "enqueue", "import", "store init"}) {
    EXPECT_NE(std::find(commands.begin(), commands.end(), expected),
              commands.end())
        << expected;
  }
  for (const char* verb :
       {"list", "pause", "resume", "run", "set", "add", "remove"}) {
    std::string expected = std::string("schedules ") + verb;
    EXPECT_NE(std::find(commands.begin(), commands.end(), expected),
              commands.end())
        << expected;
  }
  for (const std::string& c : commands) {
    std::vector<std::string> args = Split(c);
    args.push_back("--help");
    CommandResult r = RunAwcctl(args, {});
    EXPECT_EQ(r.code, 0) << c << r.err;
    EXPECT_TRUE(r.out.starts_with("usage: awcctl " + c + " ")) << r.out;
    EXPECT_NE(r.out.find("  -h, --help"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "") << c;
    std::vector<std::string> via_help = Split("help " + c);
    EXPECT_EQ(RunAwcctl(via_help, {}).out, r.out) << c;
  }
  for (const char* group : {"jobs", "dlq", "schedules"}) {
    CommandResult r = RunAwcctl({group, "--help"}, {});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(
        r.out.starts_with(std::string("usage: awcctl ") + group + " VERB"))
        << r.out;
  }
  CommandResult top = RunAwcctl({"--help"}, {});
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.out.find("3 refused by the production guard"),
            std::string::npos);
  // Both programs name the configuration file they read by default.
  EXPECT_NE(top.out.find(AWC_DEFAULT_CONFIG_FILE), std::string::npos);
  CommandResult daemon = RunProcess(ShippedDaemonPath(), {"--help"}, {});
  EXPECT_EQ(daemon.code, 0);
  EXPECT_NE(daemon.out.find(AWC_DEFAULT_CONFIG_FILE), std::string::npos)
      << daemon.out;
  CommandResult version = RunAwcctl({"-V"}, {});
  EXPECT_EQ(version.code, 0);
  EXPECT_TRUE(version.out.starts_with("awcctl ")) << version.out;
}

TEST(AwcctlHelpTest, UsageErrorsOfEveryVerbExitTwoBeforeConnecting) {
  // No DATABASE_URL: a usage error must be found before any connection.
  const std::vector<std::vector<std::string>> bad = {
      {"migrate", "--status", "--sql"},
      {"migrate", "--pending"},
      {"migrate", "--sql", "--json"},
      {"migrate", "--bogus"},
      {"roles"},
      {"roles", "--sql", "--owner", "Bad-Name"},
      {"roles", "--sql", "--owner", "x", "--runtime", "x"},
      {"health", "extra"},
      {"workers", "--fleet"},
      {"stats", "x"},
      {"jobs", "list", "--limit", "x"},
      {"jobs", "frobnicate"},
      {"jobs", "show"},
      {"jobs", "show", "x"},
      {"jobs", "cancel"},
      {"jobs", "retry", "0"},
      {"dlq", "list", "--reason", "tired"},
      {"dlq", "retry"},
      {"dlq", "retry", "--all", "--kind", "k"},
      {"dlq", "retry", "1", "--reason", "unknown_kind"},
      {"dlq", "purge"},
      {"dlq", "purge", "--older-than", "soon"},
      {"dlq", "purge", "--older-than", "1d", "--all"},
      {"dlq", "purge", "--reason", "unknown_kind"},
      {"enqueue", "no_such_kind", "{}"},
      {"enqueue", "snapshot_validate", R"({"snapshot_id": "7"})"},
      {"enqueue", "gc_sweep", R"({"tenant_id": 1})"},
      {"import", "--tenant", "t", "a", "b"},
      {"schedules", "frobnicate"},
      {"schedules", "list", "x"},
      {"schedules", "pause"},
      {"schedules", "run", "Not A Name"},
      {"schedules", "set", "gc", "@every 0x"},
      {"schedules", "add", "a", "@daily", "gc_sweep"},
      {"schedules", "add", "a", "@daily", "gc_sweep", "[]"},
      {"schedules", "add", "a", "@daily", "no_such_kind", "{}"},
      {"--yes"},
      {"-c"},
  };
  for (const auto& args : bad) {
    CommandResult r = RunAwcctl(args, {});
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_TRUE(r.err.starts_with("awcctl: ")) << r.err;
    EXPECT_NE(r.err.find("usage: awcctl"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("target"), std::string::npos) << r.err;
  }
  CommandResult kind = RunAwcctl({"enqueue", "no_such_kind", "{}"}, {});
  // The known kinds are the built-in ones, sorted (handlers/builtin.cc).
  handlers::Registry builtins;
  handlers::RegisterBuiltinHandlers(builtins);
  std::string known;
  for (const std::string& k : builtins.Kinds()) {
    known += (known.empty() ? "" : ", ") + k;
  }
  EXPECT_NE(kind.err.find("awcctl: unknown job kind \"no_such_kind\" (known: " +
                          known + "); --force enqueues it anyway"),
            std::string::npos)
      << kind.err;
  EXPECT_NE(known.find("gc_sweep, "), std::string::npos) << known;
}

}  // namespace
}  // namespace awc::testing
