// A worker that stops with a job in flight, seen from another host: two
// fleets on one database, the first one's worker SIGSTOPped mid-job. Its
// master sees no death, so the job comes back through the other fleet's
// reclaim once the stopped worker's heartbeat is stale
// (AWC_WORKER_HEARTBEAT_TIMEOUT_SECS), long before its lease would end;
// the stopped worker, resumed, finds its job gone and discards its outcome.
#include <gtest/gtest.h>
#include <jansson.h>
#include <signal.h>

#include <chrono>
#include <cstdio>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One fleet of one worker: heartbeats every second, a holder silent for 3 s
// loses its job, and the default lease of 300 s, so that what comes back
// sooner came back by the heartbeat.
DaemonProcess::Options Fleet(const TestDatabase& db, const char* id) {
  return FleetOptions(db, 1,
                      {{"AWC_WORKER_ID", id},
                       {"AWC_WORKER_HEARTBEAT_SECS", "1"},
                       {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "3"}});
}

TEST(SilentHolderTest, AStoppedWorkersJobIsTakenBackByAnotherHost) {
  TestDatabase db;
  db.Migrate();
  DaemonProcess a(Fleet(db, "a"));
  ASSERT_TRUE(a.WaitForEvent("worker started", 30)) << a.Stderr();
  int64_t id = db.Enqueue("test_sleep", R"({"ms": 6000})");
  pid_t victim = a.ChildRunning(id);
  ASSERT_NE(victim, 0) << a.Stderr();
  // Its heartbeat says busy with the job before it stops.
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.workers WHERE worker_id = 'a-1' "
               "AND job_id = $1",
               {std::to_string(id)}) == 1;
  })) << a.Stderr();
  DaemonProcess b(Fleet(db, "b"));
  ASSERT_TRUE(b.WaitForEvent("worker started", 30)) << b.Stderr();

  double stopped = Now();
  ASSERT_EQ(kill(victim, SIGSTOP), 0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}) == 2;
      },
      120))
      << b.Stderr();
  fprintf(stderr, "claimed again %.3f s after its worker was stopped\n",
          Now() - stopped);
  EXPECT_LT(Now() - stopped, 120) << "it waited for its lease";
  EXPECT_NE(db.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)})
                .find("its worker went silent (a-1: no heartbeat for 3 s)"),
            std::string::npos);
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }, 60))
      << b.Stderr();
  EXPECT_EQ(db.Scalar("SELECT locked_by FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}),
            "b-1");
  bool reported = false;
  for (const JsonPtr& e : b.EventsWith("job retried after transient failure",
                                       "job_" + std::to_string(id))) {
    reported = reported || Str(e.get(), "reason") == "holder_silent";
  }
  EXPECT_TRUE(reported) << b.Stderr();

  // Resumed, the first worker finishes its sleep and tries to record it:
  // the row has moved on, so its outcome is discarded.
  std::string token = db.Scalar(
      "SELECT lease_token FROM awc.jobs WHERE id = $1", {std::to_string(id)});
  ASSERT_EQ(kill(victim, SIGCONT), 0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const JsonPtr& e :
             a.EventsWith("job completed", "job_" + std::to_string(id))) {
          if (json_is_true(json_object_get(e.get(), "discarded"))) return true;
        }
        return false;
      },
      60))
      << a.Stderr();
  EXPECT_EQ(db.JobState(id), "COMPLETED");
  EXPECT_EQ(db.Scalar("SELECT lease_token FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}),
            token)
      << "the late outcome changed the row";
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)}),
            2);
}

TEST(SilentHolderTest, ABusyWorkerThatKeepsBeatingKeepsItsJob) {
  // The other side of the same rule: a job running for several timeouts
  // on a live worker is not taken from it.
  TestDatabase db;
  db.Migrate();
  DaemonProcess a(Fleet(db, "a"));
  DaemonProcess b(Fleet(db, "b"));
  ASSERT_TRUE(a.WaitForEvent("worker started", 30)) << a.Stderr();
  ASSERT_TRUE(b.WaitForEvent("worker started", 30)) << b.Stderr();
  int64_t id = db.Enqueue("test_sleep", R"({"ms": 10000})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }, 60))
      << a.Stderr() << b.Stderr();
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)}),
            1)
      << a.Stderr() << b.Stderr();
}

}  // namespace
}  // namespace awc::testing
