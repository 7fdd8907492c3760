// SIGHUP reloads the configuration file the nginx way: a new generation of
// workers starts, the old one finishes its jobs, and a configuration that
// does not load changes nothing. The real test daemon, a real database.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// A fleet whose concurrency and store come from an INI file (the
// environment would win over the file, so they are not set there).
struct ReloadableFleet {
  explicit ReloadableFleet(const TestDatabase& db) {
    WriteConfig(1, "memory://");
    DaemonProcess::Options o;
    o.env = {{"DATABASE_URL", db.url()},
             {"AWC_WORKER_ID", "reload"},
             {"AWC_WORKER_POLL_INTERVAL_MS", "200"},
             {"AWC_SCHEDULER", "off"}};
    o.args = {"-c", dir.path() + "/awc-worker.conf"};
    daemon = std::make_unique<DaemonProcess>(o);
  }

  void WriteConfig(int concurrency, const std::string& cas_url,
                   const std::string& extra = "") const {
    dir.Write("awc-worker.conf",
              "[cas]\nurl = " + cas_url + "\n[worker]\nconcurrency = " +
                  std::to_string(concurrency) + "\n" + extra);
  }

  std::set<pid_t> Workers() const {
    std::vector<pid_t> c = daemon->Children();
    return {c.begin(), c.end()};
  }

  TempDir dir;
  std::unique_ptr<DaemonProcess> daemon;
};

int64_t Attempts(TestDatabase& db, int64_t id) {
  return db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                {std::to_string(id)});
}

// Every test starts from a fleet of one worker, running.
class ReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WaitUntil([&] { return fleet.Workers().size() == 1; }))
        << d.Stderr();
  }

  TestDatabase db;
  ReloadableFleet fleet{db};
  DaemonProcess& d = *fleet.daemon;
};

TEST_F(ReloadTest, NewWorkersStartAndOldOnesFinishTheirJobs) {
  std::set<pid_t> old = fleet.Workers();

  int64_t id = db.Enqueue("test_sleep", R"({"ms": 3000})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "RUNNING"; }));

  fleet.WriteConfig(3, "memory://");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent("configuration reloaded")) << d.Stderr();
  auto reloaded = d.EventsWith("configuration reloaded");
  EXPECT_EQ(Int(reloaded[0].get(), "workers"), 3);
  EXPECT_EQ(Int(reloaded[0].get(), "retiring"), 1);

  // The job in flight was not interrupted: it completes in its first
  // attempt, and only then does its worker exit, cleanly and for good.
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }))
      << d.Stderr();
  EXPECT_EQ(Attempts(db, id), 1);
  ASSERT_TRUE(WaitUntil([&] {
    std::set<pid_t> now = fleet.Workers();
    return now.size() == 3 &&
           std::none_of(old.begin(), old.end(),
                        [&](pid_t p) { return now.count(p) > 0; });
  })) << d.Stderr();
  // The old worker's process is gone before the master has reaped it and
  // said so.
  ASSERT_TRUE(d.WaitForEvent("worker exited")) << d.Stderr();
  auto exits = d.EventsWith("worker exited");
  ASSERT_EQ(exits.size(), 1u) << d.Stderr();
  EXPECT_EQ(Int(exits[0].get(), "exit_code"), 0);
  EXPECT_EQ(Int(exits[0].get(), "pid"), *old.begin());
  EXPECT_EQ(d.EventsWith("worker started").size(), 4u);

  // No moment without a worker: the new ones started before the old one
  // exited, and the new generation drains jobs.
  std::vector<std::string> order;
  for (auto& e : d.Events()) {
    std::string msg = Str(e.get(), "msg");
    if (msg == "worker started" || msg == "configuration reloaded" ||
        msg == "worker exited") {
      order.push_back(msg);
    }
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{
                "worker started", "configuration reloaded", "worker started",
                "worker started", "worker started", "worker exited"}));
  std::vector<int64_t> more;
  for (int n = 0; n < 6; ++n) more.push_back(db.Enqueue("test_complete", "{}"));
  EXPECT_TRUE(WaitUntil([&] {
    return std::all_of(more.begin(), more.end(), [&](int64_t j) {
      return db.JobState(j) == "COMPLETED";
    });
  }));

  d.Signal(SIGTERM);
  auto code = d.WaitExit();
  ASSERT_TRUE(code.has_value());
  EXPECT_TRUE(WIFEXITED(*code) && WEXITSTATUS(*code) == 0) << d.Stderr();
}

TEST_F(ReloadTest, FewerWorkersByReloadWhileEveryWorkerIsBusy) {
  fleet.WriteConfig(2, "memory://");
  d.Signal(SIGHUP);
  ASSERT_TRUE(WaitUntil([&] { return fleet.Workers().size() == 2; }))
      << d.Stderr();
  ASSERT_TRUE(WaitUntil([&] {
    return d.EventsWith("worker exited").size() == 1;
  })) << d.Stderr();

  int64_t a = db.Enqueue("test_sleep", R"({"ms": 2500})");
  int64_t b = db.Enqueue("test_sleep", R"({"ms": 2500})");
  ASSERT_TRUE(WaitUntil([&] {
    return db.JobState(a) == "RUNNING" && db.JobState(b) == "RUNNING";
  }));
  fleet.WriteConfig(1, "memory://");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent("configuration reloaded", 30, 2));
  ASSERT_TRUE(WaitUntil([&] {
    return db.JobState(a) == "COMPLETED" && db.JobState(b) == "COMPLETED";
  })) << d.Stderr();
  EXPECT_EQ(Attempts(db, a), 1);
  EXPECT_EQ(Attempts(db, b), 1);
  EXPECT_TRUE(WaitUntil([&] { return fleet.Workers().size() == 1; }));
  EXPECT_TRUE(WaitUntil([&] {
    return d.EventsWith("worker exited").size() == 3;
  })) << d.Stderr();
  for (auto& e : d.EventsWith("worker exited")) {
    EXPECT_EQ(Int(e.get(), "exit_code"), 0) << d.Stderr();
  }
  EXPECT_TRUE(d.running());
}

TEST_F(ReloadTest, AConfigurationThatDoesNotLoadChangesNothing) {
  std::set<pid_t> before = fleet.Workers();
  const std::string kFailed = "reload failed; the running configuration stays";

  // Both reloads come while a job runs.
  int64_t running = db.Enqueue("test_sleep", R"({"ms": 3000})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(running) == "RUNNING"; }));

  fleet.WriteConfig(0, "memory://");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent(kFailed)) << d.Stderr();
  std::string error = Str(d.EventsWith(kFailed)[0].get(), "error");
  EXPECT_NE(error.find("concurrency"), std::string::npos) << error;

  fleet.dir.Write("awc-worker.conf", "[worker]\nno_such_key = 1\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent(kFailed, 30, 2)) << d.Stderr();
  error = Str(d.EventsWith(kFailed)[1].get(), "error");
  EXPECT_NE(error.find("no_such_key"), std::string::npos) << error;

  // The job in flight finishes in its first attempt; no worker was replaced.
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(running) == "COMPLETED"; }))
      << d.Stderr();
  EXPECT_EQ(Attempts(db, running), 1);
  EXPECT_EQ(fleet.Workers(), before);
  EXPECT_TRUE(d.EventsWith("configuration reloaded").empty());
  EXPECT_TRUE(d.EventsWith("worker exited").empty()) << d.Stderr();
  int64_t id = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }));
  EXPECT_TRUE(d.running());
}

TEST_F(ReloadTest, SettingsThatNeedARestartAreNamedAndKept) {
  std::set<pid_t> old = fleet.Workers();
  int64_t before = db.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(before) == "COMPLETED"; }));
  // The worker logs the outcome after the database has it.
  ASSERT_TRUE(d.WaitForEvent("job completed")) << d.Stderr();
  ASSERT_EQ(d.EventsWith("job completed").size(), 1u);

  // The store needs a restart; the log level does not, and applies to the
  // master and the new workers at once.
  TempDir store;
  fleet.WriteConfig(1, "file://" + store.path(), "[log]\nlevel = warn\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent("configuration reloaded")) << d.Stderr();
  auto kept =
      d.EventsWith("setting changed; it takes effect at the next restart");
  ASSERT_EQ(kept.size(), 1u) << d.Stderr();
  EXPECT_EQ(Str(kept[0].get(), "setting"), "AWC_CAS_URL");
  EXPECT_EQ(d.Stderr().find(store.path()), std::string::npos);

  // The old worker (still logging at info) may take a job enqueued before
  // it has seen its SIGTERM: wait until only the new one runs.
  ASSERT_TRUE(WaitUntil([&] {
    std::set<pid_t> now = fleet.Workers();
    return now.size() == 1 && !now.contains(*old.begin());
  })) << d.Stderr();
  int64_t after = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(after) == "COMPLETED"; }));
  EXPECT_EQ(d.EventsWith("job completed").size(), 1u) << d.Stderr();
  EXPECT_TRUE(d.EventsWith("worker started").size() == 1u) << d.Stderr();
}

}  // namespace
}  // namespace awc::testing
