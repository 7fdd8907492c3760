// The pre-fork process tree as a real process: children, titles, sessions,
// restarts with per-slot backoff, death with the parent, sd_notify.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "migrate/migrate_sql.h"
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
  // Each of these kills the worker that runs it. The replacement hands each
  // back at once (no lease to wait for) and, its single attempt spent,
  // dead-letters it.
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(db.Enqueue("test_crash", "{}", 1));
  DaemonProcess d(FleetOptions(db, 1));
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
              "its worker died running it (slot 1)");
    EXPECT_EQ(db.Scalar("SELECT dead_reason FROM awc.jobs WHERE id = $1",
                        {std::to_string(id)}),
              "worker_crashed");
  }
  // The fleet is healthy once the poison is gone.
  int64_t ok = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(ok) == "COMPLETED"; }));
}

// A persistent failure after startup is not an endless silent restart
// loop: once every worker has only been failing (exit 1: the store's marker
// is gone) for AWC_WORKER_GIVE_UP_SECS, the master says so and exits 1.
TEST(ProcessTreeTest, GivesUpAndExitsOneWhenEveryWorkerKeepsFailing) {
  TestDatabase db;
  TempDir store;
  std::string url = "file://" + store.path();
  ASSERT_TRUE(InitStore(url));
  DaemonProcess d(FleetOptions(
      db, 2, {{"AWC_CAS_URL", url}, {"AWC_WORKER_GIVE_UP_SECS", "2"}}));
  ASSERT_TRUE(d.WaitForEvent("worker started", 30, 2)) << d.Stderr();
  // The store's volume is swapped under the fleet: the running workers
  // find out when they start again.
  ASSERT_TRUE(std::filesystem::remove(store.path() + "/.awc-store"));
  for (pid_t worker : d.Children()) kill(worker, SIGKILL);
  std::optional<int> st = d.WaitExit(60);
  ASSERT_TRUE(st.has_value()) << d.Stderr();
  ASSERT_TRUE(WIFEXITED(*st)) << *st;
  EXPECT_EQ(WEXITSTATUS(*st), 1) << d.Stderr();
  auto gave_up = d.EventsWith("every worker keeps failing: giving up");
  ASSERT_EQ(gave_up.size(), 1u) << d.Stderr();
  EXPECT_EQ(Str(gave_up[0].get(), "level"), "error");
  EXPECT_GE(d.EventsWith("worker exited").size(), 4u);
  EXPECT_NE(d.Stderr().find("cannot open the object store"), std::string::npos);
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

// A datagram socket standing in for systemd's NOTIFY_SOCKET.
class FakeNotifySocket {
 public:
  FakeNotifySocket()
      : path_(::testing::TempDir() + "/notify-" + std::to_string(getpid())) {
    unlink(path_.c_str());
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    int on = 1;  // the sender's pid with every message (SCM_CREDENTIALS)
    EXPECT_EQ(setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on), 0);
  }
  ~FakeNotifySocket() {
    close(fd_);
    unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

  // Every message received so far.
  const std::vector<std::string>& messages() {
    for (;;) {
      char buf[4096];
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
      iovec iov = {buf, sizeof buf};
      msghdr msg = {};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = recvmsg(fd_, &msg, 0);
      if (n <= 0) break;
      messages_.emplace_back(buf, static_cast<size_t>(n));
      pid_t sender = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
           c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
          ucred cred;
          memcpy(&cred, CMSG_DATA(c), sizeof cred);
          sender = cred.pid;
        }
      }
      senders_.insert(sender);
    }
    return messages_;
  }
  // The pids that sent them.
  const std::set<pid_t>& senders() {
    messages();
    return senders_;
  }
  // How many messages so far contain `needle`.
  size_t Count(const std::string& needle) {
    const std::vector<std::string>& all = messages();
    return static_cast<size_t>(
        std::count_if(all.begin(), all.end(), [&](const std::string& m) {
          return m.find(needle) != std::string::npos;
        }));
  }
  bool Seen(const std::string& needle) { return Count(needle) > 0; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> messages_;
  std::set<pid_t> senders_;
};

TEST(ProcessTreeTest, NotifiesSystemd) {
  TestDatabase db;
  FakeNotifySocket sd;
  auto o = FleetOptions(db, 2);
  o.env.push_back({"NOTIFY_SOCKET", sd.path()});
  DaemonProcess d(o);
  ASSERT_TRUE(WaitUntil([&] { return sd.Seen("READY=1"); })) << d.Stderr();
  EXPECT_TRUE(sd.Seen("STATUS=2/2 workers"))
      << ::testing::PrintToString(sd.messages());
  // Not watched (no WATCHDOG_USEC): no watchdog pings.
  EXPECT_FALSE(sd.Seen("WATCHDOG=1"));
  d.Signal(SIGTERM);
  EXPECT_TRUE(WaitUntil([&] { return sd.Seen("STOPPING=1"); }));
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
}

TEST(ProcessTreeTest, PingsTheWatchdogAndExtendsTheStopWhileJobsFinish) {
  TestDatabase db;
  FakeNotifySocket sd;
  // With the scheduler too: a second kind of child, draining alongside.
  auto o = FleetOptions(
      db, 1, {{"AWC_WORKER_LEASE_SECS", "60"}, {"AWC_SCHEDULER", "on"}});
  o.env.push_back({"NOTIFY_SOCKET", sd.path()});
  o.env.push_back({"WATCHDOG_USEC", "1000000"});  // WatchdogSec=1s
  DaemonProcess d(o);
  ASSERT_TRUE(WaitUntil([&] { return sd.Seen("READY=1"); })) << d.Stderr();
  ASSERT_TRUE(d.WaitForEvent("scheduler started")) << d.Stderr();
  // Every half watchdog period while the master's loop runs.
  EXPECT_TRUE(WaitUntil([&] { return sd.Count("WATCHDOG=1") >= 4; }))
      << ::testing::PrintToString(sd.messages());
  int64_t id = db.Enqueue("test_sleep", "{\"ms\": 3000}");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(id) == "RUNNING"; }));
  d.Signal(SIGTERM);
  // The stop waits for the job, and asks systemd for time while it does.
  EXPECT_TRUE(WaitUntil([&] { return sd.Seen("EXTEND_TIMEOUT_USEC="); }))
      << ::testing::PrintToString(sd.messages());
  // Keep reading while the tree stops, as the service manager does: a
  // datagram socket queues only net.unix.max_dgram_qlen (10 by default)
  // unread messages, and the master's next sd_notify would wait for room.
  WaitUntil([&] {
    sd.messages();
    return !d.running();
  });
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value()) << d.Stderr();
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
  EXPECT_EQ(db.JobState(id), "COMPLETED");
  // Only the master talks to systemd (the workers and the scheduler inherit
  // NOTIFY_SOCKET but never use it), so a hung master stops the watchdog
  // pings.
  EXPECT_EQ(sd.senders(), std::set<pid_t>{d.pid()});
  for (const std::string& m : sd.messages()) {
    if (m.rfind("EXTEND_TIMEOUT_USEC=", 0) != 0) continue;
    uint64_t usec = std::stoull(m.substr(20));
    EXPECT_GT(usec, 0u);
    EXPECT_LE(usec, 5'000'000u) << "extended by more than one tick's worth";
  }
}

// SIGHUP replaces the scheduler with the workers
// (tests/supervisor/reload_test.cc covers the workers); systemd hears
// RELOADING=1, then READY=1.
TEST(ProcessTreeTest, ReloadReplacesTheSchedulerAndTellsSystemd) {
  TestDatabase db;
  FakeNotifySocket sd;
  TempDir dir;
  dir.Write("awc-worker.conf", "[scheduler]\nenabled = on\n");
  auto o = FleetOptions(db, 1);
  o.env.erase(std::remove_if(
                  o.env.begin(), o.env.end(),
                  [](const auto& kv) { return kv.first == "AWC_SCHEDULER"; }),
              o.env.end());
  o.env.push_back({"NOTIFY_SOCKET", sd.path()});
  o.args = {"-c", dir.path() + "/awc-worker.conf"};
  DaemonProcess d(o);
  ASSERT_TRUE(WaitUntil([&] { return sd.Seen("READY=1"); })) << d.Stderr();
  ASSERT_TRUE(d.WaitForEvent("leadership acquired")) << d.Stderr();

  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent("configuration reloaded")) << d.Stderr();
  EXPECT_TRUE(WaitUntil([&] { return sd.Seen("RELOADING=1"); }))
      << ::testing::PrintToString(sd.messages());
  EXPECT_TRUE(WaitUntil([&] { return sd.Count("READY=1") == 2; }))
      << ::testing::PrintToString(sd.messages());
  // The old scheduler hands over its lease and exits cleanly; the new one
  // takes the lead.
  ASSERT_TRUE(d.WaitForEvent("scheduler exited")) << d.Stderr();
  EXPECT_EQ(Int(d.EventsWith("scheduler exited")[0].get(), "exit_code"), 0);
  EXPECT_EQ(d.EventsWith("scheduler started").size(), 2u);
  EXPECT_TRUE(d.WaitForEvent("leadership acquired", 60, 2)) << d.Stderr();

  // Turned off by a reload, the scheduler goes and is not replaced.
  dir.Write("awc-worker.conf", "[scheduler]\nenabled = off\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForEvent("configuration reloaded", 30, 2)) << d.Stderr();
  ASSERT_TRUE(d.WaitForEvent("scheduler exited", 30, 2)) << d.Stderr();
  EXPECT_EQ(d.EventsWith("scheduler started").size(), 2u);
  EXPECT_TRUE(WaitUntil([&] { return d.Children().size() == 1; }));
  d.Signal(SIGTERM);
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
}

// Startup waits for another runner's migrations without being killed by
// the start timeout: it asks systemd for more time while it waits.
TEST(ProcessTreeTest, ExtendsTheStartWhileAnotherRunnerMigrates) {
  TestDatabase db;
  std::unique_ptr<db::PgConn> other = db.Connect();
  ASSERT_TRUE(other->Exec("BEGIN").ok());
  ASSERT_TRUE(other->Exec(migrate::sql::kLock, {migrate::sql::kLockKey}).ok());
  FakeNotifySocket sd;
  auto o = FleetOptions(db, 1);
  o.env.push_back({"NOTIFY_SOCKET", sd.path()});
  DaemonProcess d(o);
  ASSERT_TRUE(d.WaitForEvent("waiting for another runner's migrations"))
      << d.Stderr();
  EXPECT_TRUE(WaitUntil([&] { return sd.Count("EXTEND_TIMEOUT_USEC=") >= 2; }))
      << ::testing::PrintToString(sd.messages());
  EXPECT_FALSE(sd.Seen("READY=1"));
  ASSERT_TRUE(other->Exec("COMMIT").ok());
  EXPECT_TRUE(WaitUntil([&] { return sd.Seen("READY=1"); })) << d.Stderr();
  EXPECT_EQ(d.EventsWith("waiting for another runner's migrations").size(), 1u);
  EXPECT_FALSE(d.EventsWith("migration applied").empty());
}

}  // namespace
}  // namespace awc::testing
