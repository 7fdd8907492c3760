// Two releases of the daemon on one database, as a fleet upgraded host by
// host runs them (docs/operations.md, "Rolling upgrades"): this build, and
// awc-worker-testd-next, which stands for the next release (a version of
// its own, one migration and one job kind more). While the next release's
// migration is compatible, both serve side by side: the older host stays
// ready, starts again, runs what it knows, ignores payload keys it does not
// know and leaves the kinds it lacks to the newer workers. A breaking
// migration waits while workers of the older build live, naming them, and
// once applied the older build refuses to start and is not ready.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <set>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kNext = std::string(AWC_VERSION) + "+next";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class RollingUpgradeTest : public ::testing::Test {
 protected:
  RollingUpgradeTest() { db_.Migrate(); }

  int Latest() {
    return static_cast<int>(
        db_.Int("SELECT max(version) FROM awc.schema_migrations"));
  }

  // A fleet of this build, with a /readyz on `port` when it is not 0.
  std::unique_ptr<DaemonProcess> Older(int port = 0) {
    Env extra = {{"AWC_WORKER_ID", "older"}};
    if (port != 0) {
      extra.push_back(
          {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)});
    }
    return std::make_unique<DaemonProcess>(FleetOptions(db_, 2, extra));
  }

  // A fleet of the next release; `breaking`: its migration is.
  std::unique_ptr<DaemonProcess> Newer(bool breaking = false) {
    DaemonProcess::Options o =
        FleetOptions(db_, 2, {{"AWC_WORKER_ID", "newer"}});
    o.binary = AWC_TESTD_NEXT_PATH;
    if (breaking) o.env.push_back({"TESTD_NEXT_BREAKING", "1"});
    return std::make_unique<DaemonProcess>(o);
  }

  // The builds awcctl workers shows for the fresh workers.
  std::set<std::string> Builds() {
    CommandResult r =
        RunAwcctl({"workers", "--json"}, {{"DATABASE_URL", db_.url()}});
    EXPECT_EQ(r.code, 0) << r.err;
    std::set<std::string> out;
    Result<JsonPtr> doc = ParseJson(r.out);
    if (!doc.ok()) return out;
    const json_t* rows = json_object_get(doc->get(), "workers");
    if (rows == nullptr) rows = doc->get();
    for (size_t i = 0; i < json_array_size(rows); ++i) {
      const json_t* w = json_array_get(rows, i);
      if (json_is_true(json_object_get(w, "fresh")))
        out.insert(Str(w, "build"));
    }
    return out;
  }

  TestDatabase db_;
};

TEST_F(RollingUpgradeTest, BothReleasesServeSideBySide) {
  int port = FreePort();
  std::unique_ptr<DaemonProcess> older = Older(port);
  ASSERT_TRUE(older->WaitForEvent("supervisor running")) << older->Stderr();
  int known = Latest();

  // The next release migrates on startup, and the older host stays ready.
  std::unique_ptr<DaemonProcess> newer = Newer();
  ASSERT_TRUE(newer->WaitForEvent("supervisor running")) << newer->Stderr();
  EXPECT_EQ(Latest(), known + 1);
  EXPECT_EQ(db_.Int("SELECT compatible_from FROM awc.schema_migrations WHERE "
                    "version = $1",
                    {std::to_string(known + 1)}),
            db_.Int("SELECT compatible_from FROM awc.schema_migrations WHERE "
                    "version = $1",
                    {std::to_string(known)}));
  // Two probe intervals, then still ready.
  sleep(5);
  std::pair<int, std::string> ready = HttpGet(port, "/readyz");
  EXPECT_EQ(ready.first, 200) << ready.second;

  // A master of the older build starts on the newer schema, and says so.
  {
    DaemonProcess again(FleetOptions(db_, 1, {{"AWC_WORKER_ID", "again"}}));
    ASSERT_TRUE(again.WaitForEvent("supervisor running")) << again.Stderr();
    EXPECT_FALSE(
        again
            .EventsWith("the database has migrations of a later release, "
                        "compatible with this build; upgrade this host")
            .empty())
        << again.Stderr();
    again.Signal(SIGTERM);
    ASSERT_TRUE(again.WaitExit().has_value());
  }

  // Both builds show in awcctl workers.
  ASSERT_TRUE(WaitUntil([&] {
    std::set<std::string> builds = Builds();
    return builds.count(AWC_VERSION) > 0 && builds.count(kNext) > 0;
  }));

  // The next release's kind: only its workers run it, none is dead, and the
  // older workers that took one gave it back without spending an attempt.
  std::vector<int64_t> next_jobs;
  for (int i = 0; i < 20; ++i) {
    next_jobs.push_back(db_.Enqueue("test_next_kind", "{}"));
  }
  // A newer producer's key, and a kind no build knows.
  int64_t keyed = db_.Enqueue("test_sleep", R"({"ms": 1, "added_later": 1})");
  int64_t nobody = db_.Enqueue("test_no_build_knows", "{}");
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.jobs WHERE kind = "
               "'test_next_kind' AND state = 'COMPLETED'") == 20 &&
           db_.JobState(keyed) == "COMPLETED" &&
           db_.JobState(nobody) == "FAILED";
  })) << older->Stderr();
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs WHERE kind = "
                    "'test_next_kind' AND (attempts <> 1 OR result->>'by' <> "
                    "'next')"),
            0);
  EXPECT_EQ(db_.Scalar("SELECT dead_reason FROM awc.jobs WHERE id = $1",
                       {std::to_string(nobody)}),
            "unknown_kind");
  for (const JsonPtr& e : older->EventsWith("job deferred")) {
    EXPECT_EQ(Str(e.get(), "kind"), "test_next_kind");
  }
  EXPECT_TRUE(older->EventsWith("job dead-lettered").size() <= 1)
      << older->Stderr();
}

TEST_F(RollingUpgradeTest, ABreakingMigrationWaitsForTheOlderWorkers) {
  int port = FreePort();
  std::unique_ptr<DaemonProcess> older = Older(port);
  ASSERT_TRUE(older->WaitForEvent("supervisor running")) << older->Stderr();
  ASSERT_TRUE(WaitUntil([&] { return Builds().count(AWC_VERSION) > 0; }));
  int known = Latest();

  // Refused while the older build's workers live: startup names them.
  std::unique_ptr<DaemonProcess> refused = Newer(/*breaking=*/true);
  std::optional<int> st = refused->WaitExit(60);
  ASSERT_TRUE(st.has_value()) << refused->Stderr();
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 1) << refused->Stderr();
  const std::string err = refused->Stderr();
  EXPECT_TRUE(Contains(err,
                       "is not compatible with builds that know versions "
                       "before " +
                           std::to_string(known + 1)))
      << err;
  EXPECT_TRUE(Contains(err, "older-1 on ")) << err;
  EXPECT_TRUE(Contains(
      err, "(" AWC_VERSION ", knows version " + std::to_string(known) + ")"))
      << err;
  EXPECT_EQ(Latest(), known);

  // The older fleet stops: the migration goes through.
  older->Signal(SIGTERM);
  ASSERT_TRUE(older->WaitExit().has_value());
  std::unique_ptr<DaemonProcess> newer = Newer(/*breaking=*/true);
  ASSERT_TRUE(newer->WaitForEvent("supervisor running")) << newer->Stderr();
  EXPECT_EQ(Latest(), known + 1);

  // Now the older build is the one that cannot run: it refuses to start.
  DaemonProcess again(FleetOptions(db_, 1, {{"AWC_WORKER_ID", "again"}}));
  st = again.WaitExit(60);
  ASSERT_TRUE(st.has_value()) << again.Stderr();
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 1) << again.Stderr();
  EXPECT_TRUE(Contains(again.Stderr(), "needs a build that knows version " +
                                           std::to_string(known + 1) +
                                           " or later: upgrade this host"))
      << again.Stderr();
}

}  // namespace
}  // namespace awc::testing
