// Startup of the shipped binary: every failure prints "awc-worker: <error>"
// (after the journal's priority prefix under systemd) and exits 1, and no
// secret reaches any output.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

constexpr const char* kSecret = "Sup3r-S3cret-pw";

using RunResult = CommandResult;

RunResult RunDaemon(std::vector<std::pair<std::string, std::string>> env,
                    std::vector<std::string> args = {}) {
  return RunProcess(ShippedDaemonPath(), std::move(args), std::move(env));
}

// The last line of stderr, where the startup error is.
std::string LastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

void ExpectNoSecret(const RunResult& r, const std::string& secret = kSecret) {
  EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
}

// A URL for the test cluster whose password is replaced by `password`.
std::string UrlWithPassword(const std::string& db,
                            const std::string& password) {
  std::string url = ClusterUrl(db);
  std::string real = getenv("PGPASSWORD") ? getenv("PGPASSWORD") : "";
  size_t at = url.find(":" + real + "@");
  return url.replace(at + 1, real.size(), password);
}

TEST(StartupTest, MissingDatabaseUrl) {
  RunResult r = RunDaemon({{"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awc-worker: DATABASE_URL is not set\n");
}

TEST(StartupTest, MissingCasUrl) {
  RunResult r = RunDaemon({{"DATABASE_URL", ClusterUrl("postgres")}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awc-worker: AWC_CAS_URL is not set\n");
}

TEST(StartupTest, NonIntegerSettingNamesTheSetting) {
  RunResult r = RunDaemon({{"DATABASE_URL", ClusterUrl("postgres")},
                           {"AWC_CAS_URL", "memory://"},
                           {"AWC_WORKER_CONCURRENCY", "four"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "awc-worker: AWC_WORKER_CONCURRENCY: \"four\" is not an integer\n");
}

// Under systemd, stderr is the journal's stream (JOURNAL_STREAM names it)
// and the error carries its syslog priority, which the journal strips;
// anywhere else the line is plain.
TEST(StartupTest, UnderTheJournalTheErrorCarriesItsPriority) {
  const std::string kError =
      "awc-worker: AWC_WORKER_CONCURRENCY: \"four\" is not an integer\n";
  struct stat null_st;
  ASSERT_EQ(stat("/dev/null", &null_st), 0);
  const std::string kElsewhere =
      std::to_string(null_st.st_dev) + ":" + std::to_string(null_st.st_ino);
  struct Case {
    bool journal_stream;
    std::string stream;  // JOURNAL_STREAM otherwise; "" for none
    std::string prefix;
  };
  for (const Case& c : {Case{true, "", "<3>"}, Case{false, "", ""},
                        Case{false, kElsewhere, ""}}) {
    DaemonProcess::Options o;
    o.binary = ShippedDaemonPath();
    o.env = {{"DATABASE_URL", ClusterUrl("postgres")},
             {"AWC_CAS_URL", "memory://"},
             {"AWC_WORKER_CONCURRENCY", "four"}};
    if (!c.stream.empty()) o.env.push_back({"JOURNAL_STREAM", c.stream});
    o.journal_stream = c.journal_stream;
    DaemonProcess d(o);
    std::optional<int> status = d.WaitExit();
    ASSERT_TRUE(status && WIFEXITED(*status)) << d.Stderr();
    EXPECT_EQ(WEXITSTATUS(*status), 1);
    EXPECT_EQ(d.Stderr(), c.prefix + kError) << c.stream;
  }
}

TEST(StartupTest, OutOfRangeSettings) {
  RunResult zero = RunDaemon({{"AWC_WORKER_CONCURRENCY", "0"}});
  EXPECT_EQ(zero.code, 1);
  EXPECT_EQ(
      zero.err,
      "awc-worker: AWC_WORKER_CONCURRENCY: 0 is out of range (1..1024)\n");
  RunResult lease = RunDaemon({{"AWC_WORKER_LEASE_SECS", "-5"}});
  EXPECT_EQ(lease.code, 1);
  EXPECT_NE(lease.err.find("awc-worker: AWC_WORKER_LEASE_SECS: -5 is out of "
                           "range"),
            std::string::npos)
      << lease.err;
}

TEST(StartupTest, UnreachableHostShowsTypeAndMessageButNoSecret) {
  int port = FreePort();  // nothing listens there
  RunResult r = RunDaemon(
      {{"DATABASE_URL", std::string("postgresql://awc:") + kSecret +
                            "@127.0.0.1:" + std::to_string(port) + "/awc"},
       {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(r.code, 1);
  std::string last = LastLine(r.err);
  EXPECT_TRUE(last.starts_with("awc-worker: database connection failed: "))
      << last;
  EXPECT_NE(last.find("Connection refused"), std::string::npos) << last;
  EXPECT_EQ(last.find("postgresql://"), std::string::npos) << last;
  ExpectNoSecret(r);
}

TEST(StartupTest, WrongPasswordShowsTheServerMessageButNoSecret) {
  RunResult r =
      RunDaemon({{"DATABASE_URL", UrlWithPassword("postgres", kSecret)},
                 {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(r.code, 1);
  std::string last = LastLine(r.err);
  EXPECT_TRUE(last.starts_with("awc-worker: database connection failed: "))
      << last;
  EXPECT_NE(last.find("password authentication failed"), std::string::npos)
      << last;
  ExpectNoSecret(r);
}

TEST(StartupTest, MissingDatabaseShowsTheServerMessageButNoSecret) {
  std::string real = getenv("PGPASSWORD") ? getenv("PGPASSWORD") : "";
  ASSERT_GE(real.size(), 4u) << "the test cluster must use a password";
  RunResult r = RunDaemon({{"DATABASE_URL", ClusterUrl("no_such_database")},
                           {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(r.code, 1);
  std::string last = LastLine(r.err);
  EXPECT_NE(last.find("database \"no_such_database\" does not exist"),
            std::string::npos)
      << last;
  ExpectNoSecret(r, real);
}

TEST(StartupTest, UnsupportedSchemeNamesTheScheme) {
  TestDatabase db;
  RunResult r =
      RunDaemon({{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "ftp://x/y"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(LastLine(r.err).starts_with(
      "awc-worker: AWC_CAS_URL: unsupported scheme \"ftp://\""))
      << r.err;
}

TEST(StartupTest, RelativeFileUrlIsRefused) {
  TestDatabase db;
  RunResult r = RunDaemon(
      {{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "file://relative/path"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: AWC_CAS_URL: file:// needs an absolute path, as in "
            "file:///var/lib/awc");
}

TEST(StartupTest, S3SchemeFollowsTheBuild) {
  TestDatabase db;
#if AWC_WITH_S3
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = {{"DATABASE_URL", db.url()},
           {"AWC_CAS_URL", "s3://awc-bucket/prefix"},
           {"AWC_WORKER_CONCURRENCY", "1"}};
  DaemonProcess d(o);
  EXPECT_TRUE(d.WaitForEvent("supervisor running")) << d.Stderr();
#else
  RunResult r = RunDaemon(
      {{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "s3://awc-bucket/prefix"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("rebuild with cmake -DAWC_WITH_S3=ON"),
            std::string::npos);
#endif
}

TEST(StartupTest, NewerSchemaIsRefusedAtStartup) {
  TestDatabase db;
  db.Migrate();
  db.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'x')");
  RunResult r =
      RunDaemon({{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "memory://"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(LastLine(r.err).starts_with(
      "awc-worker: migrations: database schema is at version 9999"))
      << r.err;
}

TEST(StartupTest, MetricsAddressInUseIsAStartupError) {
  TestDatabase db;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string listen_at = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  RunResult r = RunDaemon({{"DATABASE_URL", db.url()},
                           {"AWC_CAS_URL", "memory://"},
                           {"AWC_METRICS_LISTEN", listen_at}});
  close(fd);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(LastLine(r.err).starts_with("awc-worker: ")) << r.err;
  EXPECT_NE(LastLine(r.err).find(listen_at), std::string::npos) << r.err;
}

TEST(StartupTest, CheckModePrintsSettingsRedacted) {
  std::string secret_file = ::testing::TempDir() + "/s3-secret";
  std::ofstream(secret_file) << "S3-Secret-Key-Value\n";
  RunResult r =
      RunDaemon({{"DATABASE_URL", std::string("postgresql://awc:") + kSecret +
                                      "@db.example:5432/awc"},
                 {"AWC_CAS_URL", "file:///var/lib/awc"},
                 {"AWC_S3_SECRET_ACCESS_KEY_FILE", secret_file},
                 {"AWC_WORKER_CONCURRENCY", "7"}},
                {"-t"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("AWC_WORKER_CONCURRENCY = 7"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("postgresql://awc:********@db.example:5432/awc"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("AWC_S3_SECRET_ACCESS_KEY = ********"),
            std::string::npos)
      << r.out;
  ExpectNoSecret(r);
  ExpectNoSecret(r, "S3-Secret-Key-Value");
  EXPECT_NE(r.err.find("configuration is ok"), std::string::npos);
}

TEST(StartupTest, CheckModeFailsOnBadSettings) {
  RunResult r = RunDaemon({{"AWC_CAS_URL", "memory://"}}, {"-t"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err), "awc-worker: DATABASE_URL is not set");
  RunResult bad = RunDaemon(
      {{"DATABASE_URL", "host=x"}, {"AWC_CAS_URL", "gopher://"}}, {"-t"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(LastLine(bad.err).find("unsupported scheme"), std::string::npos);
}

// -t puts the errors first, every one of them, and then no settings: the
// error is what the operator reads, not the last of 43 lines.
TEST(StartupTest, CheckModeNamesEveryErrorFirst) {
  RunResult none = RunDaemon({}, {"-t"});
  EXPECT_EQ(none.code, 1);
  EXPECT_EQ(none.err,
            "awc-worker: DATABASE_URL is not set\n"
            "awc-worker: AWC_CAS_URL is not set\n");
  EXPECT_EQ(none.out, "");
  RunResult one = RunDaemon({{"AWC_CAS_URL", "memory://"}}, {"-t"});
  EXPECT_EQ(one.code, 1);
  EXPECT_EQ(one.err, "awc-worker: DATABASE_URL is not set\n");
  EXPECT_EQ(one.out, "");
  // Every value that does not parse, not only the first; startup the same.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-t"}, std::vector<std::string>{}}) {
    RunResult bad = RunDaemon({{"DATABASE_URL", "host=x"},
                               {"AWC_CAS_URL", "gopher://"},
                               {"AWC_WORKER_CONCURRENCY", "four"}},
                              args);
    EXPECT_EQ(bad.code, 1);
    EXPECT_EQ(bad.err,
              "awc-worker: AWC_CAS_URL: unsupported scheme \"gopher://\" "
              "(expected memory://, file:///absolute/path or "
              "s3://bucket[/prefix])\n"
              "awc-worker: AWC_WORKER_CONCURRENCY: \"four\" is not an "
              "integer\n");
    EXPECT_EQ(bad.out, "");
  }
}

// An AWC_* variable this build does not read is a warning, with the setting
// it was likely meant for: -t says so and still passes, startup logs it.
TEST(StartupTest, AMisspelledVariableIsAWarning) {
  RunResult check = RunDaemon({{"DATABASE_URL", "host=db.example"},
                               {"AWC_CAS_URL", "memory://"},
                               {"AWC_WORKER_CONCURENCY", "8"},
                               {"AWC_SOMETHING_ELSE", "1"},
                               {"AWC_S3RVER", "/opt/s3rver"},
                               {"AWC_CONFIG_FILE", "x"}},
                              {"-t"});
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.err.find("awc-worker: warning: AWC_WORKER_CONCURENCY is not "
                           "a setting (ignored); did you mean "
                           "AWC_WORKER_CONCURRENCY?\n"),
            std::string::npos)
      << check.err;
  EXPECT_NE(check.err.find("awc-worker: warning: AWC_SOMETHING_ELSE is not a "
                           "setting (ignored)\n"),
            std::string::npos)
      << check.err;
  EXPECT_NE(check.err.find("awc-worker: warning: AWC_CONFIG_FILE is not a "
                           "setting (ignored)\n"),
            std::string::npos)
      << check.err;
  EXPECT_EQ(check.err.find("AWC_S3RVER"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("configuration is ok"), std::string::npos);
  EXPECT_NE(check.out.find("AWC_WORKER_CONCURRENCY = 4 "), std::string::npos);

  int port = FreePort();  // nothing listens there: startup stops after it
  RunResult start = RunDaemon(
      {{"DATABASE_URL",
        "postgresql://awc@127.0.0.1:" + std::to_string(port) + "/awc"},
       {"AWC_CAS_URL", "memory://"},
       {"AWC_WORKER_CONCURENCY", "8"}});
  EXPECT_EQ(start.code, 1);
  EXPECT_NE(start.err.find("\"variable\":\"AWC_WORKER_CONCURENCY\""),
            std::string::npos)
      << start.err;
  EXPECT_NE(start.err.find("\"did_you_mean\":\"AWC_WORKER_CONCURRENCY\""),
            std::string::npos)
      << start.err;
  EXPECT_NE(start.err.find("\"level\":\"warn"), std::string::npos) << start.err;
}

TEST(StartupTest, IniErrorNamesFileAndLine) {
  std::string path = ::testing::TempDir() + "/awc-bad.conf";
  std::ofstream(path) << "[worker]\nconcurrency = 2\nconcurency = 3\n";
  RunResult r = RunDaemon({}, {"-c", path, "-t"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err), "awc-worker: " + path +
                                 ":3: unknown key \"concurency\" in section "
                                 "[worker]");
}

TEST(StartupTest, HelpVersionAndBadOptions) {
  RunResult help = RunDaemon({}, {"-h"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("usage: awc-worker"), std::string::npos);
  RunResult version = RunDaemon({}, {"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_TRUE(version.out.starts_with("awc-worker ")) << version.out;
  RunResult bad = RunDaemon({}, {"-x"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_TRUE(bad.err.starts_with("awc-worker: unknown option -x")) << bad.err;
  RunResult extra = RunDaemon({}, {"extra"});
  EXPECT_EQ(extra.code, 1);
}

}  // namespace
}  // namespace awc::testing
