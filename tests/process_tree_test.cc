// The pre-fork process tree as a real process: children, titles, sessions,
// restarts with per-slot backoff, death with the parent, sd_notify.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

TEST(ProcessTreeTest, ForksNWorkersWithTitlesAndSessions) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 3, {{"AWC_WORKER_ID", "tree"}}));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 3; }))
      << d.Stderr();
  EXPECT_EQ(ProcessTitle(d.pid()), "awc-worker: master");
  std::set<std::string> titles;
  ASSERT_TRUE(WaitUntil([&] {
    titles.clear();
    for (pid_t c : d.Children()) titles.insert(ProcessTitle(c));
    return titles == std::set<std::string>{"awc-worker: worker 1 idle",
                                           "awc-worker: worker 2 idle",
                                           "awc-worker: worker 3 idle"};
  })) << "titles: "
      << ::testing::PrintToString(titles);
  // One session per worker, named by its worker id; the master holds none.
  EXPECT_TRUE(WaitUntil([&] {
    return db.Scalar(
               "SELECT string_agg(application_name, ',' ORDER BY "
               "application_name) FROM pg_stat_activity WHERE datname = "
               "current_database() AND application_name LIKE 'tree%'") ==
           "tree-1,tree-2,tree-3";
  }));
  // A busy worker's title names its job.
  int64_t id = db.Enqueue("test_sleep", R"({"ms": 3000})");
  EXPECT_TRUE(WaitUntil([&] {
    for (pid_t c : d.Children()) {
      std::string t = ProcessTitle(c);
      if (t.ends_with(" job " + std::to_string(id) + " test_sleep"))
        return true;
    }
    return false;
  }));
}

TEST(ProcessTreeTest, KilledWorkerIsReplacedInItsSlot) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 2));
  ASSERT_TRUE(d.WaitForEvent("worker started", 30, 2));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 2; }));
  pid_t victim = d.Children()[0];
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  ASSERT_TRUE(d.WaitForEvent("worker started", 30, 3)) << d.Stderr();
  auto exits = d.EventsWith("worker exited");
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(Int(exits[0].get(), "pid"), victim);
  EXPECT_EQ(Str(exits[0].get(), "signal"), "KILL");
  EXPECT_EQ(Str(exits[0].get(), "level"), "error");
  int64_t slot = Int(exits[0].get(), "slot");
  auto starts = d.EventsWith("worker started");
  EXPECT_EQ(Int(starts.back().get(), "slot"), slot);
  EXPECT_NE(Int(starts.back().get(), "pid"), victim);
  EXPECT_TRUE(WaitUntil([&] { return d.Children().size() == 2; }));
  // The replacement works.
  int64_t id = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }));
}

TEST(ProcessTreeTest, CrashLoopBacksOffPerSlotAndPoisonJobsAreDeadLettered) {
  TestDatabase db;
  db.Migrate();
  // Each of these kills the worker that runs it. With a one-second lease the
  // fleet reclaims each one and, its single attempt spent, dead-letters it.
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(db.Enqueue("test_crash", "{}", 1));
  DaemonProcess d(FleetOptions(db, 1, {{"AWC_WORKER_LEASE_SECS", "1"}}));
  ASSERT_TRUE(d.WaitForEvent("worker exited", 60, 4)) << d.Stderr();
  auto exits = d.EventsWith("worker exited");
  std::vector<double> delays;
  for (auto& e : exits) delays.push_back(Num(e.get(), "restart_in_s"));
  EXPECT_DOUBLE_EQ(delays[0], 0.1);
  EXPECT_DOUBLE_EQ(delays[1], 0.2);
  EXPECT_DOUBLE_EQ(delays[2], 0.4);
  EXPECT_DOUBLE_EQ(delays[3], 0.8);
  for (int64_t id : ids) {
    EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "FAILED"; }))
        << "job " << id << " is " << db.JobState(id);
    EXPECT_EQ(db.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                        {std::to_string(id)}),
              "lease expired (held by t-1)");
  }
  // The fleet is healthy once the poison is gone.
  int64_t ok = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(ok) == "COMPLETED"; }));
}

TEST(ProcessTreeTest, WorkersDieWithTheMaster) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 3));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 3; }));
  std::vector<pid_t> workers = d.Children();
  ASSERT_EQ(kill(d.pid(), SIGKILL), 0);
  EXPECT_TRUE(WaitUntil([&] {
    return std::none_of(workers.begin(), workers.end(), ProcessAlive);
  })) << "orphaned workers are still running";
}

TEST(ProcessTreeTest, OrphanedWorkerFinishesItsJobFirst) {
  TestDatabase db;
  DaemonProcess d(FleetOptions(db, 1));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 1; }));
  int64_t id = db.Enqueue("test_sleep", R"({"ms": 1500})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "RUNNING"; }));
  pid_t worker = d.Children()[0];
  ASSERT_EQ(kill(d.pid(), SIGKILL), 0);
  EXPECT_TRUE(WaitUntil([&] { return !ProcessAlive(worker); }));
  EXPECT_EQ(db.JobState(id), "COMPLETED");
}

TEST(ProcessTreeTest, NotifiesSystemd) {
  TestDatabase db;
  std::string path =
      ::testing::TempDir() + "/notify-" + std::to_string(getpid());
  unlink(path.c_str());
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::vector<std::string> messages;
  auto drain = [&] {
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
      messages.emplace_back(buf, static_cast<size_t>(n));
    }
  };
  auto seen = [&](const std::string& needle) {
    drain();
    return std::any_of(messages.begin(), messages.end(), [&](auto& m) {
      return m.find(needle) != std::string::npos;
    });
  };
  auto o = FleetOptions(db, 2);
  o.env.push_back({"NOTIFY_SOCKET", path});
  DaemonProcess d(o);
  ASSERT_TRUE(WaitUntil([&] { return seen("READY=1"); })) << d.Stderr();
  EXPECT_TRUE(seen("STATUS=2/2 workers")) << ::testing::PrintToString(messages);
  d.Signal(SIGTERM);
  EXPECT_TRUE(WaitUntil([&] { return seen("STOPPING=1"); }));
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
  close(fd);
  unlink(path.c_str());
}

}  // namespace
}  // namespace awc::testing
