// Shutdown: SIGTERM drains (the job in flight completes and is recorded),
// SIGQUIT stops at once, both exit 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

int ExitCode(DaemonProcess& d) {
  std::optional<int> st = d.WaitExit(60);
  if (!st || !WIFEXITED(*st)) return -1;
  return WEXITSTATUS(*st);
}

// A test_sleep job of `ms`, enqueued once the daemon's workers are up and
// returned once a worker holds it.
int64_t JobInFlight(TestDatabase& db, DaemonProcess& d, int ms,
                    size_t workers = 1) {
  EXPECT_TRUE(d.WaitForEvent("worker started", 30, workers)) << d.Stderr();
  int64_t id = db.Enqueue("test_sleep", "{\"ms\": " + std::to_string(ms) + "}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "RUNNING"; }));
  return id;
}

TEST(ShutdownTest, SigtermFinishesTheJobInFlightAndClaimsNoMore) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 2));
  int64_t id = JobInFlight(db, d, 1500, 2);
  d.Signal(SIGTERM);
  ASSERT_TRUE(d.WaitForEvent("graceful shutdown: workers finish their jobs"));
  // Once the idle worker has gone, a job enqueued now can only be claimed
  // by the busy one, when it records its job: it must not. (Before that, an
  // idle worker's claim already on its way to the server may take it.)
  ASSERT_TRUE(d.WaitForEvent("worker exited")) << d.Stderr();
  int64_t later = db.Enqueue("test_complete", "{}");
  EXPECT_EQ(ExitCode(d), 0) << d.Stderr();
  EXPECT_EQ(db.JobState(id), "COMPLETED");
  EXPECT_EQ(db.Scalar("SELECT result::text FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}),
            R"({"slept_ms": 1500})");
  EXPECT_EQ(db.JobState(later), "PENDING") << d.Stderr();
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(later)}),
            0);
  // Every worker exited cleanly and the master said so.
  for (auto& e : d.EventsWith("worker exited")) {
    EXPECT_EQ(Int(e.get(), "exit_code"), 0);
    EXPECT_EQ(Str(e.get(), "level"), "info");
  }
  EXPECT_EQ(d.EventsWith("job completed", "job_" + std::to_string(id)).size(),
            1u);
  EXPECT_EQ(d.EventsWith("shut down").size(), 1u);
}

TEST(ShutdownTest, RepeatedSigtermDoesNotAbandonTheJob) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 1));
  int64_t id = JobInFlight(db, d, 1500);
  d.Signal(SIGTERM);
  ASSERT_TRUE(d.WaitForEvent("graceful shutdown: workers finish their jobs"));
  d.Signal(SIGINT);
  d.Signal(SIGTERM);
  EXPECT_EQ(ExitCode(d), 0);
  EXPECT_EQ(db.JobState(id), "COMPLETED");
  EXPECT_GE(d.EventsWith("shutdown already in progress; waiting for jobs in "
                         "flight (SIGQUIT stops at once)")
                .size(),
            1u);
}

TEST(ShutdownTest, SigintDrainsLikeSigterm) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 1));
  int64_t id = JobInFlight(db, d, 800);
  d.Signal(SIGINT);
  EXPECT_EQ(ExitCode(d), 0);
  EXPECT_EQ(db.JobState(id), "COMPLETED");
}

TEST(ShutdownTest, SigquitStopsAtOnceAndTheLeaseBringsTheJobBack) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 1, {{"AWC_WORKER_LEASE_SECS", "2"}}));
  int64_t id = JobInFlight(db, d, 20000);
  d.Signal(SIGQUIT);
  EXPECT_EQ(ExitCode(d), 0);
  // Not completed: the worker left without recording anything.
  EXPECT_EQ(db.JobState(id), "RUNNING");
  EXPECT_EQ(d.EventsWith("fast shutdown: workers exit now").size(), 1u);
  // A new fleet reclaims it once the lease has run out.
  db.Exec("UPDATE awc.jobs SET payload = '{\"ms\": 10}' WHERE id = $1",
          {std::to_string(id)});
  DaemonProcess again(FleetOptions(db, 1));
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }))
      << again.Stderr();
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)}),
            2);
}

TEST(ShutdownTest, IdleFleetStopsPromptly) {
  TestDatabase db;
  // A long poll interval: the stop must not wait for the next poll.
  DaemonProcess d(
      FleetOptions(db, 4, {{"AWC_WORKER_POLL_INTERVAL_MS", "600000"}}));
  ASSERT_TRUE(d.WaitForEvent("worker started", 30, 4));
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = "
               "current_database() AND application_name LIKE 't-%'") == 4;
  }));
  d.Signal(SIGTERM);
  EXPECT_EQ(ExitCode(d), 0);
  EXPECT_EQ(d.EventsWith("worker exited").size(), 4u);
}

}  // namespace
}  // namespace awc::testing
