#include "cli/awcctl.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "catalog/states.h"
#include "cli/command.h"
#include "handlers/registry.h"
#include "queue/job.h"

namespace awc::cli {
namespace {

// Runs awcctl with no database, no terminal and an environment of its own;
// stdout and stderr are captured.
class AwcctlDispatchTest : public ::testing::Test {
 protected:
  struct Run {
    int code;
    std::string out;
    std::string err;
  };

  Run Awcctl(const std::vector<std::string>& args,
             const std::vector<Command>* commands = nullptr) {
    FILE* out = tmpfile();
    FILE* err = tmpfile();
    Io io;
    io.out = out;
    io.err = err;
    io.env = [this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
    int code = commands != nullptr ? RunAwcctl(*commands, args, io)
                                   : RunAwcctl(args, io);
    Run r{code, Slurp(out), Slurp(err)};
    fclose(out);
    fclose(err);
    return r;
  }

  static std::string Slurp(FILE* f) {
    fflush(f);
    rewind(f);
    std::string s;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    return s;
  }

  std::map<std::string, std::string> env_;
};

TEST_F(AwcctlDispatchTest, HelpListsEveryCommandAndEachHasItsOwn) {
  Run help = Awcctl({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_TRUE(help.out.starts_with("usage: awcctl ")) << help.out;
  for (const char* c :
       {"  migrate ", "  jobs list ", "  dlq purge ", "  health ", "  roles ",
        "  schedules add ", "  schedules list "}) {
    EXPECT_NE(help.out.find(c), std::string::npos) << c;
  }
  EXPECT_EQ(Awcctl({"help"}).out, help.out);
  Run verb = Awcctl({"dlq", "purge", "--help"});
  EXPECT_EQ(verb.code, kExitOk);
  EXPECT_TRUE(verb.out.starts_with("usage: awcctl dlq purge ID... | "))
      << verb.out;
  EXPECT_NE(verb.out.find("  --older-than DURATION"), std::string::npos);
  EXPECT_NE(verb.out.find("  -y, --yes"), std::string::npos);
  EXPECT_EQ(Awcctl({"help", "dlq", "purge"}).out, verb.out);
  Run group = Awcctl({"jobs", "--help"});
  EXPECT_EQ(group.code, kExitOk);
  EXPECT_NE(group.out.find("\"awcctl jobs [ARGS]\" is \"awcctl jobs list "
                           "[ARGS]\"."),
            std::string::npos)
      << group.out;
}

TEST_F(AwcctlDispatchTest, UsageErrorsNameTheProblemAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    const char* first_line;
  };
  const Case cases[] = {
      {{}, "awcctl: no command given"},
      {{"frobnicate"}, "awcctl: unknown command \"frobnicate\""},
      {{"jobs", "frobnicate"}, "awcctl: unknown command \"jobs frobnicate\""},
      {{"-q", "jobs"}, "awcctl: unknown option -q"},
      {{"jobs", "--bogus"}, "awcctl: unknown option --bogus"},
      {{"jobs", "--state", "BOGUS"},
       "awcctl: --state must be PENDING, RUNNING, COMPLETED, FAILED or "
       "CANCELLED"},
      {{"health", "x"}, "awcctl: health takes no arguments"},
      {{"jobs", "show", "1", "2"},
       "awcctl: jobs show: wrong number of arguments"},
      {{"schedules", "frob"}, "awcctl: unknown command \"schedules frob\""},
      {{"schedules", "pause"},
       "awcctl: schedules pause: wrong number of arguments"},
      {{"schedules", "add", "a", "@daily", "k"},
       "awcctl: schedules add: wrong number of arguments"},
      {{"schedules", "list", "extra"},
       "awcctl: schedules list takes no arguments"},
      {{"schedules", "set", "gc", "@every 5x"},
       "awcctl: schedule spec \"@every 5x\": expected @every <N>h<N>m<N>s "
       "(e.g. @every 90s, @every 1h30m), @hourly, @daily or @weekly"},
      {{"dlq", "purge", "--older-than", "2y"},
       "awcctl: --older-than: \"2y\" is not a duration (a whole number with "
       "s, m, h, d or w: 90s, 15m, 12h, 7d, 2w)"},
      {{"dlq", "purge", "--older-than", "999999999999"},
       "awcctl: --older-than: \"999999999999\" is longer than the longest "
       "duration accepted, 36500d (100 years)"},
      {{"dlq", "purge", "--dry-run", "--older-than", "999999999999w"},
       "awcctl: --older-than: \"999999999999w\" is longer than the longest "
       "duration accepted, 36500d (100 years)"},
  };
  for (const Case& c : cases) {
    Run r = Awcctl(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.first_line;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.first_line);
    EXPECT_NE(r.err.find("usage: awcctl"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(AwcctlDispatchTest, ARuntimeErrorBeforeConnectingExitsOne) {
  Run r = Awcctl({"jobs"});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_EQ(r.err, "awcctl: DATABASE_URL is not set\n");
  env_["AWC_WORKER_CONCURRENCY"] = "many";
  r = Awcctl({"stats"});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_EQ(r.err,
            "awcctl: AWC_WORKER_CONCURRENCY: \"many\" is not an integer\n");
}

// awcctl's own options may follow the verb too; "--" still ends the options.
TEST_F(AwcctlDispatchTest, GlobalOptionsComeBeforeOrAfterTheVerb) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-d", "host=/no/such/dir port=9", "workers"},
        std::vector<std::string>{"workers", "-d", "host=/no/such/dir port=9"},
        std::vector<std::string>{"workers", "--database-url",
                                 "host=/no/such/dir port=9"},
        std::vector<std::string>{"workers",
                                 "--database-url=host=/no/such/dir port=9"},
        std::vector<std::string>{"jobs", "list", "--state", "FAILED", "-d",
                                 "host=/no/such/dir port=9"},
        std::vector<std::string>{"jobs", "-d", "host=/no/such/dir port=9"}}) {
    Run r = Awcctl(args);
    EXPECT_EQ(r.code, kExitError) << ::testing::PrintToString(args) << r.err;
    EXPECT_TRUE(r.err.starts_with("awcctl: target postgresql://"))
        << ::testing::PrintToString(args) << r.err;
    EXPECT_NE(r.err.find("%2Fno%2Fsuch%2Fdir:9"), std::string::npos)
        << ::testing::PrintToString(args) << r.err;
  }
  Run config = Awcctl({"workers", "-c", "/no/such/awc.conf"});
  EXPECT_EQ(config.code, kExitError) << config.err;
  EXPECT_NE(config.err.find("/no/such/awc.conf"), std::string::npos)
      << config.err;
  Run needs = Awcctl({"workers", "-d"});
  EXPECT_EQ(needs.code, kExitUsage) << needs.err;
  EXPECT_EQ(needs.err.substr(0, needs.err.find('\n')),
            "awcctl: -d needs a value (URL)");
  // After "--", "-d" is an argument: here a job kind.
  Run kind = Awcctl({"kinds", "pause", "--", "-d"});
  EXPECT_EQ(kind.code, kExitError) << kind.err;
  EXPECT_EQ(kind.err, "awcctl: DATABASE_URL is not set\n");
}

// What awcctl echoes of what was typed is one line of text.
TEST_F(AwcctlDispatchTest, EchoedArgumentsAreOneLineOfText) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-\x1b]0;x\x07"},
        std::vector<std::string>{"jobs", "--\x1b[2J"},
        std::vector<std::string>{"\x1b[2Jfrob"},
        std::vector<std::string>{"jobs", "\x1b[2Jfrob"},
        std::vector<std::string>{"jobs", "show", "1\n2"},
        std::vector<std::string>{"--list", "x\x1b[2J"},
        std::vector<std::string>{"dlq", "purge", "--older-than", "\r9"}}) {
    Run r = Awcctl(args);
    EXPECT_EQ(r.code, kExitUsage) << ::testing::PrintToString(args);
    for (char c : r.err) {
      bool control =
          (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f;
      EXPECT_FALSE(control) << ::testing::PrintToString(r.err);
      if (control) break;
    }
    std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_TRUE(first.starts_with("awcctl: ")) << first;
    EXPECT_EQ(r.err.find("\n2"), std::string::npos) << r.err;
  }
}

TEST_F(AwcctlDispatchTest, CommandsThatNeedNoDatabaseRunWithoutOne) {
  Run roles = Awcctl({"roles", "--sql", "--runtime", "svc"});
  EXPECT_EQ(roles.code, kExitOk) << roles.err;
  EXPECT_NE(roles.out.find("CREATE ROLE svc LOGIN;"), std::string::npos);
  Run sql = Awcctl({"migrate", "--sql"});
  EXPECT_EQ(sql.code, kExitOk) << sql.err;
  EXPECT_TRUE(sql.out.starts_with("-- awc-worker schema migrations "));
  EXPECT_EQ(sql.err, "");
  Run version = Awcctl({"--version"});
  EXPECT_EQ(version.out, "awcctl " AWC_VERSION "\n");
}

// store init connects to no database: a URL with a control character is a
// usage error that neither makes the directory nor echoes the character.
TEST_F(AwcctlDispatchTest, StoreInitRefusesAControlCharacterInTheUrl) {
  char dir_template[] = "/tmp/awcctl-test.XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  Run r = Awcctl({"store", "init", "file://" + dir + "/x\ny"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "awcctl: URL: has a control character (0x0a at byte " +
                std::to_string(std::string("file://" + dir + "/x").size() + 1) +
                ")");
  EXPECT_EQ(r.err.find("y\n"), std::string::npos) << r.err;
  struct stat st;
  EXPECT_NE(stat((dir + "/x").c_str(), &st), 0) << "made a directory";
  EXPECT_NE(stat((dir + "/x\ny").c_str(), &st), 0) << "made a directory";
  rmdir(dir.c_str());
}

// --list prints the tables the values live in, which the bash completion
// (contrib/bash-completion/awcctl) offers.
TEST_F(AwcctlDispatchTest, ListPrintsTheValuesOfEachClosedList) {
  auto lines = [](const auto& rows) {
    std::string out;
    for (const auto& row : rows) out += std::string(row.name) + "\n";
    return out;
  };
  Run states = Awcctl({"--list", "states"});
  EXPECT_EQ(states.code, kExitOk) << states.err;
  EXPECT_EQ(states.out, "PENDING\nRUNNING\nCOMPLETED\nFAILED\nCANCELLED\n");
  EXPECT_EQ(states.out, lines(queue::kJobStates));
  EXPECT_EQ(Awcctl({"--list=reasons"}).out, lines(queue::kDeadReasons));
  EXPECT_EQ(Awcctl({"--list", "snapshot-states"}).out,
            lines(catalog::kSnapshotStates));
  handlers::Registry registry;
  handlers::RegisterBuiltinHandlers(registry);
  std::string kinds;
  for (const std::string& k : registry.Kinds()) kinds += k + "\n";
  Run listed = Awcctl({"-c", "/nonexistent", "--list", "kinds"});
  EXPECT_EQ(listed.code, kExitOk) << listed.err;
  EXPECT_EQ(listed.out, kinds);
  EXPECT_NE(kinds.find("snapshot_validate\n"), std::string::npos);
  EXPECT_EQ(Awcctl({"--list"}).out,
            "states\nreasons\nsnapshot-states\nkinds\n");
  Run bad = Awcctl({"--list", "colours"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')),
            "awcctl: --list takes states, reasons, snapshot-states or kinds, "
            "not \"colours\"");
  EXPECT_EQ(bad.out, "");
}

int GroupedRun(Invocation& inv) {
  inv.Print(std::string(inv.command().name) + ":" +
            std::to_string(inv.args().positional.size()) + "\n");
  return kExitOk;
}

TEST_F(AwcctlDispatchTest, ATableOfGroupedVerbs) {
  Command list{"things list", "[ID...]", "list things", "", {}};
  list.max_args = -1;
  list.bare = true;
  list.run = GroupedRun;
  Command show{"things show", "ID", "show a thing", "", {}};
  show.min_args = show.max_args = 1;
  show.run = GroupedRun;
  std::vector<Command> table = {list, show};

  // The longest name wins; the group's word alone runs its bare verb.
  EXPECT_EQ(Awcctl({"things", "show", "3"}, &table).out, "things show:1\n");
  EXPECT_EQ(Awcctl({"things", "list", "1", "2"}, &table).out,
            "things list:2\n");
  EXPECT_EQ(Awcctl({"things"}, &table).out, "things list:0\n");
  EXPECT_EQ(Awcctl({"things", "--json"}, &table).code, kExitUsage);
  Run help = Awcctl({"help"}, &table);
  EXPECT_NE(help.out.find("  things show ID\n      show a thing\n"),
            std::string::npos)
      << help.out;
}

}  // namespace
}  // namespace awc::cli
