// The store marker end to end: the shipped daemon and `awcctl import` use
// only a store made by `awcctl store init` (file:// and s3://), so that a
// typo in AWC_CAS_URL or an unmounted volume is an error, not an empty
// store; `awcctl store init` itself; and `awc-worker -t`, which checks the
// settings and leaves the store alone. `awcctl store reconcile` has the
// shipped daemon reconcile a tenant and waits for its result.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "common/env.h"
#include "common/json.h"
#include "tests/support/harness.h"
#if AWC_WITH_S3
#include "tests/support/s3_server.h"
#endif

namespace awc::testing {
namespace {

namespace fs = std::filesystem;
using Vars = std::vector<std::pair<std::string, std::string>>;

// The last line of stderr, where the startup error is.
std::string LastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

CommandResult RunDaemon(Vars env, std::vector<std::string> args = {}) {
  return RunProcess(ShippedDaemonPath(), std::move(args), std::move(env));
}

// What the daemon and awcctl say about a store that was never initialised,
// after the name of the setting that named it.
std::string NotInitialised(const std::string& url, const std::string& why) {
  return url + " is not an initialised awc store (" + why +
         "); check the URL, or create the store with \"awcctl store init " +
         url + "\"";
}

// Starts the shipped daemon with one worker; true once it runs.
bool Starts(Vars env, std::string* log) {
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = std::move(env);
  o.env.emplace_back("AWC_WORKER_CONCURRENCY", "1");
  DaemonProcess d(o);
  bool running = d.WaitForEvent("supervisor running");
  *log = d.Stderr();
  return running;
}

TEST(StoreInitTest, TheDaemonRefusesAFileStoreUntilItIsInitialised) {
  TestDatabase db;
  TempDir dir;
  std::string missing = dir.path() + "/nonexistent";
  std::string url = "file://" + missing;
  Vars env = {{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", url}};

  // A path that does not exist (a typo): refused, and not created.
  CommandResult r = RunDaemon(env);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: object store (AWC_CAS_URL): " +
                NotInitialised(
                    url, "file store root \"" + missing + "\" does not exist"))
      << r.err;
  EXPECT_FALSE(fs::exists(missing)) << "the daemon created the store";

  // A directory without the marker (a mount point with nothing mounted).
  Vars empty = {{"DATABASE_URL", db.url()},
                {"AWC_CAS_URL", "file://" + dir.path()}};
  r = RunDaemon(empty);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: object store (AWC_CAS_URL): " +
                NotInitialised("file://" + dir.path(), "no .awc-store marker"))
      << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path())) << "the daemon wrote into it";

  // Initialised, it starts.
  ASSERT_TRUE(InitStore(url));
  std::string log;
  EXPECT_TRUE(Starts(env, &log)) << log;
}

// The repair store is held to the same rule: a typo in AWC_CAS_REPAIR_URL
// stops startup naming the setting, rather than making every repair fail.
TEST(StoreInitTest, TheDaemonRefusesARepairStoreThatWasNotInitialised) {
  TestDatabase db;
  TempDir dir;
  std::string url = "file://" + dir.path() + "/cas";
  std::string replica = "file://" + dir.path() + "/replica";
  ASSERT_TRUE(InitStore(url));
  fs::create_directories(dir.path() + "/replica");
  Vars env = {{"DATABASE_URL", db.url()},
              {"AWC_CAS_URL", url},
              {"AWC_CAS_REPAIR_URL", replica}};
  CommandResult r = RunDaemon(env);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: repair store (AWC_CAS_REPAIR_URL): " +
                NotInitialised(replica, "no .awc-store marker"))
      << r.err;
  ASSERT_TRUE(InitStore(replica));
  std::string log;
  EXPECT_TRUE(Starts(env, &log)) << log;
}

TEST(StoreInitTest, TestConfigChecksTheSettingsAndLeavesTheStoreAlone) {
  // -t, like startup, never makes a store. It connects to nothing (neither
  // the database nor the store), so what only the store can tell — here,
  // that it was never initialised — is startup's to refuse, as a wrong
  // password or a missing bucket is (awc-worker(8), -t).
  TestDatabase db;
  TempDir dir;
  std::string missing = dir.path() + "/nonexistent";
  Vars env = {{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "file://" + missing}};
  CommandResult t = RunDaemon(env, {"-t"});
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(LastLine(t.err), "awc-worker: configuration is ok");
  EXPECT_FALSE(fs::exists(missing));
  CommandResult r = RunDaemon(env);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(
      LastLine(r.err).starts_with("awc-worker: object store (AWC_CAS_URL): "))
      << r.err;
  EXPECT_FALSE(fs::exists(missing));

  // A store URL that is wrong as a setting: both refuse it, alike.
  Vars bad = {{"DATABASE_URL", db.url()},
              {"AWC_CAS_URL", "file://relative/cas"}};
  CommandResult bad_t = RunDaemon(bad, {"-t"});
  CommandResult bad_start = RunDaemon(bad);
  EXPECT_EQ(bad_t.code, 1);
  EXPECT_EQ(bad_start.code, 1);
  EXPECT_EQ(LastLine(bad_t.err), LastLine(bad_start.err));
}

TEST(StoreInitTest, AMarkerOfAnotherFormatIsRefusedAndKept) {
  TestDatabase db;
  TempDir dir;
  std::string url = "file://" + dir.path();
  const std::string newer = R"({"format": "awc-store", "version": 2})";
  dir.Write(".awc-store", newer);
  std::string error = url +
                      " has store format version 2, which this release of "
                      "awc-worker does not know (it knows version 1)";
  CommandResult r =
      RunDaemon({{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", url}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err), "awc-worker: object store (AWC_CAS_URL): " + error)
      << r.err;

  CommandResult init = RunAwcctl({"store", "init", url}, {});
  EXPECT_EQ(init.code, 1);
  EXPECT_EQ(init.err, "awcctl: " + error + "\n");
  EXPECT_EQ(*Env::Default()->ReadFile(dir.path() + "/.awc-store"), newer);

  dir.Write(".awc-store", "not json");
  r = RunDaemon({{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", url}});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: object store (AWC_CAS_URL): " + url +
                ": its .awc-store marker is malformed (expected "
                "{\"format\":\"awc-store\",\"version\":1})")
      << r.err;
  init = RunAwcctl({"store", "init", url}, {});
  EXPECT_EQ(init.code, 1);
  EXPECT_NE(init.err.find("marker is malformed"), std::string::npos)
      << init.err;
}

TEST(StoreInitTest, InitMakesTheStoreOnceAndAgainIsFine) {
  TempDir dir;
  std::string root = dir.path() + "/a/b";
  CommandResult r = RunAwcctl({"store", "init", "file://" + root}, {});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "initialised file://" + root + "\n");
  EXPECT_EQ(*Env::Default()->ReadFile(root + "/.awc-store"),
            "{\"format\":\"awc-store\",\"version\":1}\n");
  // Again, with another spelling of the URL: nothing changes.
  r = RunAwcctl({"store", "init", "file://" + root + "/"}, {});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "file://" + root + " is already an awc store\n");
  EXPECT_EQ(*Env::Default()->ReadFile(root + "/.awc-store"),
            "{\"format\":\"awc-store\",\"version\":1}\n");
  // memory:// needs none.
  r = RunAwcctl({"store", "init", "memory://"}, {});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "memory:// needs no initialisation\n");
  // --json says whether it made the marker.
  for (auto [url, created] : std::vector<std::pair<std::string, bool>>{
           {"file://" + root, false}, {"file://" + dir.path() + "/c", true}}) {
    r = RunAwcctl({"--json", "store", "init", url}, {});
    EXPECT_EQ(r.code, 0) << r.err;
    Result<JsonPtr> doc = ParseJson(r.out);
    ASSERT_TRUE(doc.ok()) << r.out;
    EXPECT_EQ(Str(doc->get(), "url"), url);
    EXPECT_EQ(json_is_true(json_object_get(doc->get(), "created")), created)
        << r.out;
  }
}

TEST(StoreInitTest, InitUsageAndErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"store"},
           {"store", "init"},
           {"store", "frob", "memory://"},
           {"store", "init", "memory://", "extra"}}) {
    CommandResult r = RunAwcctl(args, {});
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_NE(r.err.find("usage: awcctl"), std::string::npos) << r.err;
  }
  CommandResult bad = RunAwcctl({"store", "init", "ftp://x/y"}, {});
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(bad.err.starts_with("awcctl: URL: unsupported scheme \"ftp://\""))
      << bad.err;
  EXPECT_NE(bad.err.find("usage: awcctl store init URL"), std::string::npos)
      << bad.err;
  // A path that cannot be a store root.
  TempDir dir;
  dir.Write("file", "x");
  std::string file = dir.path() + "/file";
  CommandResult not_dir = RunAwcctl({"store", "init", "file://" + file}, {});
  EXPECT_EQ(not_dir.code, 1);
  EXPECT_NE(not_dir.err.find(file), std::string::npos) << not_dir.err;
}

TEST(StoreInitTest, ImportRefusesAStoreThatWasNotInitialised) {
  TestDatabase db;
  db.Migrate();
  TempDir dir, tree;
  tree.Write("a.txt", "a");
  std::string url = "file://" + dir.path() + "/typo";
  CommandResult r =
      RunAwcctl({"import", "--tenant", "t1", tree.path()},
                {{"DATABASE_URL", db.url()}, {"AWC_CAS_URL", url}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("awcctl: object store (AWC_CAS_URL): " +
                       NotInitialised(url, "file store root \"" + dir.path() +
                                               "/typo\" does not exist")),
            std::string::npos)
      << r.err;
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.snapshots"), 0);
  EXPECT_FALSE(fs::exists(dir.path() + "/typo"));
}

TEST(StoreInitTest, AWorkerStartedAfterTheStoreWentAwayRefusesIt) {
  TestDatabase db;
  TempDir dir;
  ASSERT_TRUE(InitStore("file://" + dir.path()));
  DaemonProcess d(
      FleetOptions(db, 1, {{"AWC_CAS_URL", "file://" + dir.path()}}));
  // The schema is migrated before any worker starts; the worker's
  // heartbeat says it runs, so it has opened the store.
  ASSERT_TRUE(d.WaitForEvent("worker started")) << d.Stderr();
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int("SELECT count(*) FROM awc.workers WHERE state = 'idle'") == 1;
  })) << d.Stderr();
  // The volume goes: the running worker is not asked again, the next one
  // refuses the store and exits, and the supervisor says so.
  fs::remove(dir.path() + "/.awc-store");
  std::vector<pid_t> workers = d.Children();
  ASSERT_EQ(workers.size(), 1u);
  kill(workers[0], SIGKILL);
  ASSERT_TRUE(d.WaitForEvent("cannot open the object store")) << d.Stderr();
  auto events = d.EventsWith("cannot open the object store");
  EXPECT_EQ(Str(events[0].get(), "error"),
            NotInitialised("file://" + dir.path(), "no .awc-store marker"));
}

#if AWC_WITH_S3
TEST(StoreInitTest, TheDaemonRefusesAnS3StoreUntilItIsInitialised) {
  const std::string secret = "store-init-s3-secret";
  S3Server server;
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(server.CreateBucket("awc-init"));
  TestDatabase db;
  Vars s3 = {{"AWC_S3_ENDPOINT", server.Endpoint()},
             {"AWC_S3_FORCE_PATH_STYLE", "true"},
             {"AWC_S3_ACCESS_KEY_ID", S3Server::kAccessKeyId},
             {"AWC_S3_SECRET_ACCESS_KEY", secret}};
  std::string url = "s3://awc-init/fleet";
  Vars env = s3;
  env.emplace_back("DATABASE_URL", db.url());
  env.emplace_back("AWC_CAS_URL", url);

  CommandResult r = RunDaemon(env);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err), "awc-worker: object store (AWC_CAS_URL): " +
                                 NotInitialised(url, "no .awc-store marker"))
      << r.err;
  EXPECT_EQ(r.err.find(secret), std::string::npos);

  CommandResult init = RunAwcctl({"store", "init", url + "/"}, s3);
  ASSERT_EQ(init.code, 0) << init.err;
  EXPECT_EQ(init.out, "initialised " + url + "\n");
  init = RunAwcctl({"store", "init", url}, s3);
  ASSERT_EQ(init.code, 0) << init.err;
  EXPECT_EQ(init.out, url + " is already an awc store\n");
  std::string log;
  EXPECT_TRUE(Starts(env, &log)) << log;
  EXPECT_EQ(log.find(secret), std::string::npos);

  // The marker belongs to its prefix: the bucket's root, or another
  // prefix, is not initialised by it.
  Vars other = s3;
  other.emplace_back("DATABASE_URL", db.url());
  other.emplace_back("AWC_CAS_URL", "s3://awc-init");
  r = RunDaemon(other);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastLine(r.err),
            "awc-worker: object store (AWC_CAS_URL): " +
                NotInitialised("s3://awc-init", "no .awc-store marker"))
      << r.err;

  // A bucket that does not exist is not something init makes.
  CommandResult no_bucket = RunAwcctl({"store", "init", "s3://no-such"}, s3);
  EXPECT_EQ(no_bucket.code, 1);
  EXPECT_NE(no_bucket.err.find("NoSuchBucket"), std::string::npos)
      << no_bucket.err;
}
#endif

TEST(StoreReconcileTest, TheFleetReconcilesATenantAwcctlWaitsForIt) {
  TestDatabase db;
  TempDir dir;
  std::string url = "file://" + dir.path() + "/cas";
  ASSERT_TRUE(InitStore(url));
  Vars env = {{"DATABASE_URL", db.url()},
              {"AWC_CAS_URL", url},
              {"AWC_WORKER_CONCURRENCY", "1"},
              {"AWC_WORKER_POLL_INTERVAL_MS", "100"}};
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = env;
  DaemonProcess d(o);
  ASSERT_TRUE(d.WaitForEvent("supervisor running")) << d.Stderr();
  // A tenant with one object the inventory never heard of, written long
  // ago, and a key that is not an object's.
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('acme')");
  std::string hex(64, 'a');
  dir.Write("cas/acme/sha256/aa/" + hex, "not what its name says");
  dir.Write("cas/acme/stray.txt", "x");
  std::string orphan = dir.path() + "/cas/acme/sha256/aa/" + hex;
  ASSERT_EQ(system(("touch -d '3 days ago' " + orphan).c_str()), 0);

  CommandResult bad = RunAwcctl({"store", "reconcile", "../acme"}, env);
  EXPECT_EQ(bad.code, 2) << bad.err;
  CommandResult r =
      RunAwcctl({"store", "reconcile", "acme", "--wait", "60", "--json"}, env);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  Result<JsonPtr> doc = ParseJson(r.out);
  ASSERT_TRUE(doc.ok()) << r.out;
  EXPECT_STREQ(json_string_value(json_object_get(doc->get(), "state")),
               "COMPLETED");
  json_t* result = json_object_get(doc->get(), "result");
  EXPECT_EQ(json_integer_value(json_object_get(result, "orphans")), 1);
  EXPECT_EQ(json_integer_value(json_object_get(result, "other_keys")), 1);
  // Registered, as old as the file: the next GC epoch's to delete.
  EXPECT_EQ(db.Scalar("SELECT state FROM awc.objects WHERE digest = $1",
                      {"sha256:" + hex}),
            "LIVE");
  EXPECT_TRUE(fs::exists(orphan));
  d.Signal(SIGTERM);
  EXPECT_TRUE(d.WaitExit().has_value());
}

}  // namespace
}  // namespace awc::testing
