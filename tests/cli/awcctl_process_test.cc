// awcctl as a process: usage and runtime errors, migrate, enqueue, jobs,
// import into a file:// store and the round trip through the daemon.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "migrate/embedded_migrations.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

int LatestVersion() { return migrate::EmbeddedMigrations().back().version; }

class AwcctlTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(InitStore("file://" + store_.path())); }
  Env Settings() {
    return {{"DATABASE_URL", db_.url()},
            {"AWC_CAS_URL", "file://" + store_.path()}};
  }
  CommandResult Run(std::vector<std::string> args) {
    return RunAwcctl(std::move(args), Settings());
  }

  TestDatabase db_;
  TempDir store_;
};

TEST_F(AwcctlTest, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"frobnicate"},
      {"-x", "jobs"},
      {"migrate", "extra"},
      {"import", "/tmp"},
      {"import", "--tenant", "t1"},
      {"import", "--tenant", "t1", "--workspace", "zero", "/tmp"},
      {"enqueue", "kind_only"},
      {"enqueue", "k", "{not json"},
      {"enqueue", "k", "{}", "--max-attempts", "0"},
      {"enqueue", "k", "{}", "--delay", "-1"},
      {"jobs", "--state", "BOGUS"},
      {"jobs", "--limit", "0"},
  };
  for (const auto& args : bad) {
    CommandResult r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_TRUE(r.err.starts_with("awcctl: ")) << r.err;
    EXPECT_NE(r.err.find("usage: awcctl"), std::string::npos) << r.err;
  }
  CommandResult help = Run({"help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("import --tenant T"), std::string::npos);
}

// awcctl reads the daemon's settings, so it warns, as the daemon does, of
// an AWC_* variable that is no setting; the command runs all the same.
TEST(AwcctlWarningTest, AMisspelledVariableIsAWarning) {
  TempDir dir;
  dir.Write("secret", "S3-Secret-2\n");
  CommandResult r =
      RunAwcctl({"store", "init", "memory://"},
                {{"AWC_WORKER_CONCURENCY", "8"},
                 {"AWC_S3_SECRET_ACCESS_KEY_FILE", dir.path() + "/secret"},
                 {"AWC_S3_SECRET_ACCES_KEY", "Typo-Secret-1"}});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "memory:// needs no initialisation\n");
  EXPECT_NE(r.err.find("awcctl: warning: AWC_WORKER_CONCURENCY is not a "
                       "setting (ignored); did you mean "
                       "AWC_WORKER_CONCURRENCY?\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("awcctl: warning: AWC_S3_SECRET_ACCES_KEY is not a "
                       "setting (ignored); did you mean "
                       "AWC_S3_SECRET_ACCESS_KEY?\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("AWC_S3_SECRET_ACCESS_KEY_FILE"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Typo-Secret-1"), std::string::npos) << r.err;
}

TEST_F(AwcctlTest, RuntimeErrorsExitOneWithoutSecrets) {
  CommandResult no_db = RunAwcctl({"jobs"}, {});
  EXPECT_EQ(no_db.code, 1);
  EXPECT_EQ(no_db.err, "awcctl: DATABASE_URL is not set\n");

  const std::string secret = "Awcctl-S3cret-pw";
  const std::string port = std::to_string(FreePort());
  CommandResult unreachable = RunAwcctl(
      {"migrate"}, {{"DATABASE_URL", "postgresql://u:" + secret +
                                         "@127.0.0.1:" + port + "/x"}});
  EXPECT_EQ(unreachable.code, 1);
  // Where it tried, then why it failed.
  EXPECT_TRUE(unreachable.err.starts_with(
      "awcctl: target postgresql://u@127.0.0.1:" + port +
      "/x\nawcctl: database connection failed"))
      << unreachable.err;
  EXPECT_EQ(unreachable.err.find(secret), std::string::npos);

  ASSERT_EQ(Run({"migrate"}).code, 0);
  CommandResult missing = Run({"import", "--tenant", "t1", "/nonexistent/dir"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(missing.err.ends_with(
      "\nawcctl: \"/nonexistent/dir\" is not a directory\n"))
      << missing.err;
  TempDir tree;
  tree.Write("a", "x");
  CommandResult bad_tenant = Run({"import", "--tenant", "Bad!", tree.path()});
  EXPECT_EQ(bad_tenant.code, 1);
  CommandResult foreign =
      Run({"import", "--tenant", "t1", "--workspace", "12345", tree.path()});
  EXPECT_EQ(foreign.code, 1);
  EXPECT_NE(foreign.err.find("workspace 12345 does not exist for tenant t1"),
            std::string::npos);
  CommandResult bad_store = RunAwcctl(
      {"import", "--tenant", "t1", tree.path()},
      {{"DATABASE_URL", db_.url()}, {"AWC_CAS_URL", "ftp://nowhere"}});
  EXPECT_EQ(bad_store.code, 1);
  EXPECT_NE(bad_store.err.find("unsupported scheme"), std::string::npos);
}

// A secret set where the path of its file belongs is not echoed back by
// the error (awcctl(1), ENVIRONMENT: no error shows the password).
TEST(AwcctlSecretFileTest, ASecretGivenForItsPathIsNotEchoed) {
  TempDir dir;
  dir.Write("awc.conf",
            "[database]\nurl_file = postgresql://awc:SECRETPW@host/db\n");
  const std::vector<std::pair<std::vector<std::string>, Env>> runs = {
      {{"jobs", "list"},
       {{"DATABASE_URL_FILE", "postgresql://awc:SECRETPW@host/db"}}},
      {{"jobs", "list"}, {{"DATABASE_URL_FILE", "host=h password=SECRETPW"}}},
      {{"-c", dir.path() + "/awc.conf", "jobs", "list"}, {}},
      {{"jobs", "list"},
       {{"DATABASE_URL", "postgresql://awc@127.0.0.1:1/x"},
        {"AWC_S3_SECRET_ACCESS_KEY_FILE", "SECRETPW/K7MDENG+bPxRfiCY"}}},
  };
  for (const auto& [args, env] : runs) {
    CommandResult r = RunAwcctl(args, env);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(r.err.starts_with("awcctl: ")) << r.err;
    EXPECT_TRUE(r.err.find("_FILE: cannot open") != std::string::npos ||
                r.err.find("url_file: cannot open") != std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("SECRETPW"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("SECRETPW"), std::string::npos) << r.err;
  }
  CommandResult url =
      RunAwcctl({"jobs", "list"},
                {{"DATABASE_URL_FILE", "postgresql://awc:SECRETPW@host/db"}});
  EXPECT_EQ(url.err,
            "awcctl: DATABASE_URL_FILE: cannot open "
            "\"postgresql://awc:********@host/db\": No such file or directory "
            "(this looks like a URL: the setting takes the path of a file "
            "holding it)\n");
}

TEST_F(AwcctlTest, MigrateEnqueueAndJobs) {
  CommandResult m = Run({"migrate"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("applied 0001_job_queue"), std::string::npos);
  CommandResult again = Run({"migrate"});
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.out.find("applied"), std::string::npos);
  EXPECT_NE(again.out.find("schema is at version"), std::string::npos);

  CommandResult e = Run({"enqueue", "gc_sweep", R"({"tenant_id": "t1"})",
                         "--max-attempts", "3", "--delay", "60"});
  ASSERT_EQ(e.code, 0) << e.err;
  int64_t id = std::stoll(e.out);
  EXPECT_EQ(db_.Scalar("SELECT kind || '/' || max_attempts || '/' || (run_at > "
                       "now() + interval '50 seconds') FROM awc.jobs WHERE id "
                       "= $1",
                       {std::to_string(id)}),
            "gc_sweep/3/true");
  Run({"enqueue", "snapshot_scrub", R"({"snapshot_id": 1})"});
  CommandResult all = Run({"jobs"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_NE(all.out.find("gc_sweep"), std::string::npos);
  EXPECT_NE(all.out.find("snapshot_scrub"), std::string::npos);
  CommandResult filtered =
      Run({"jobs", "--kind", "gc_sweep", "--state", "PENDING"});
  EXPECT_NE(filtered.out.find("gc_sweep"), std::string::npos);
  EXPECT_EQ(filtered.out.find("snapshot_scrub"), std::string::npos);
}

TEST_F(AwcctlTest, CommandsRefuseAnUnmigratedDatabase) {
  TempDir tree;
  tree.Write("f", "x");
  CommandResult r = Run({"import", "--tenant", "acme", tree.path()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.err.ends_with(
      "\nawcctl: schema is at version 0, this binary "
      "needs " +
      std::to_string(LatestVersion()) + ": run awcctl migrate\n"))
      << r.err;
  EXPECT_EQ(Run({"jobs"}).code, 1);
}

TEST_F(AwcctlTest, ImportRoundTripThroughTheDaemon) {
  ASSERT_EQ(Run({"migrate"}).code, 0);
  TempDir tree;
  tree.Write("README", "hello\n");
  tree.Write("src/main.c", "int main(void) { return 0; }\n");
  tree.Write("src/lib/util.c", "/* util */\n");
  tree.Write("docs/README", "hello\n");  // same bytes as /README
  CommandResult imp = Run({"import", "--tenant", "acme", tree.path()});
  ASSERT_EQ(imp.code, 0) << imp.err;
  int64_t snap = std::stoll(imp.out);
  // 3 distinct blobs + 4 manifests (root, src, src/lib, docs).
  EXPECT_NE(imp.err.find("imported 7 objects (7 uploaded, 0 deduplicated"),
            std::string::npos)
      << imp.err;
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                       {std::to_string(snap)}),
            "VALIDATING");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE tenant_id = "
                    "'acme'"),
            7);
  // The file:// layout of the contract.
  std::string readme = db_.Scalar(
      "SELECT digest FROM awc.objects WHERE size = 6 AND tenant_id = 'acme'");
  std::string hex = readme.substr(7);
  struct stat st;
  EXPECT_EQ(
      stat((store_.path() + "/acme/sha256/" + hex.substr(0, 2) + "/" + hex)
               .c_str(),
           &st),
      0);

  // The daemon validates it.
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = Settings();
  o.env.push_back({"AWC_WORKER_CONCURRENCY", "2"});
  DaemonProcess d(o);
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snap)}) == "READY";
  })) << d.Stderr();
  EXPECT_EQ(db_.Int("SELECT object_count FROM awc.snapshots WHERE id = $1",
                    {std::to_string(snap)}),
            7);

  // A second import of the same tree uploads nothing and, the READY
  // snapshot holding the whole tree, touches only its root.
  db_.Exec("UPDATE awc.objects SET last_seen_at = now() - interval '1 day'");
  CommandResult again = Run({"import", "--tenant", "acme", tree.path()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("(0 uploaded, 7 deduplicated, 1 directories reused"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(db_.Scalar("SELECT string_agg(digest, ',') FROM awc.objects "
                       "WHERE last_seen_at > now() - interval '1 hour'"),
            db_.Scalar("SELECT root_digest FROM awc.snapshots WHERE id = $1",
                       {std::to_string(snap)}));
  int64_t snap2 = std::stoll(again.out);
  EXPECT_TRUE(WaitUntil([&] {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snap2)}) == "READY";
  }));
}

TEST_F(AwcctlTest, ImportIntoAWorkspace) {
  ASSERT_EQ(Run({"migrate"}).code, 0);
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('acme')");
  int64_t ws = db_.Int(
      "INSERT INTO awc.workspaces (tenant_id) VALUES ('acme') "
      "RETURNING id");
  TempDir tree;
  tree.Write("f", "data");
  CommandResult imp = Run({"import", "--tenant", "acme", "--workspace",
                           std::to_string(ws), tree.path()});
  ASSERT_EQ(imp.code, 0) << imp.err;
  EXPECT_EQ(db_.Int("SELECT workspace_id FROM awc.snapshots WHERE id = $1",
                    {imp.out.substr(0, imp.out.size() - 1)}),
            ws);
}

}  // namespace
}  // namespace awc::testing
