// A worker process that dies with a job in flight, on the real daemon: its
// job is back in the queue as soon as a live worker of the host sees the
// death (the master leaves it in the worker status table), not when its
// lease ends, and a job that kills its worker every time is dead-lettered
// as worker_crashed once its attempts are spent.
#include <gtest/gtest.h>
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

TEST(WorkerCrashTest, AKilledWorkersJobIsBackAtOnceAndCompletedByAnother) {
  TestDatabase db;
  db.Migrate();
  // The default lease, 300 s: what comes back sooner came back by the
  // death, not by the lease.
  DaemonProcess d(FleetOptions(db, 2));
  ASSERT_TRUE(d.WaitForEvent("worker started", 30, 2)) << d.Stderr();
  int64_t id = db.Enqueue("test_sleep", R"({"ms": 3000})");
  pid_t victim = d.ChildRunning(id);
  ASSERT_NE(victim, 0) << d.Stderr();
  double killed = Now();
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}) == 2;
      },
      60))
      << d.Stderr();
  double back = Now() - killed;
  fprintf(stderr, "claimed again %.3f s after its worker was killed\n", back);
  EXPECT_LT(back, 60) << "it waited for its lease";
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }, 60))
      << d.Stderr();
  EXPECT_NE(db.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)})
                .find("its worker died running it (slot "),
            std::string::npos);
  bool reported = false;
  for (const JsonPtr& e : d.EventsWith("job retried after transient failure",
                                       "job_" + std::to_string(id))) {
    reported = reported || Str(e.get(), "reason") == "worker_died";
  }
  EXPECT_TRUE(reported) << d.Stderr();
}

TEST(WorkerCrashTest, AJobThatKillsItsWorkerEveryTimeIsDeadLettered) {
  TestDatabase db;
  db.Migrate();
  int64_t id = db.Enqueue("test_crash", "{}", 2);
  DaemonProcess d(FleetOptions(db, 2));
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "FAILED"; }, 60))
      << "job " << id << " is " << db.JobState(id) << "\n"
      << d.Stderr();
  EXPECT_EQ(db.Scalar("SELECT dead_reason FROM awc.jobs WHERE id = $1",
                      {std::to_string(id)}),
            "worker_crashed");
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)}),
            2);
  // The fleet goes on.
  int64_t ok = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(ok) == "COMPLETED"; }));
}

}  // namespace
}  // namespace awc::testing
