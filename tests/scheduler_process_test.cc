// The scheduler as a child of the master: one per tree unless turned off,
// its titles and session, its restarts, its clean stop; and `awcctl
// schedules`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <set>

#include "tests/support/scheduler_support.h"

namespace awc::testing {
namespace {

TEST(SchedulerProcessTest, EveryTreeHasASchedulerChild) {
  TestDatabase db;
  DaemonProcess d(SchedulerTree(db, "tree", 3, 2));
  ASSERT_TRUE(WaitUntil([&] { return d.Children().size() == 3; }))
      << d.Stderr();
  std::set<std::string> titles;
  ASSERT_TRUE(WaitUntil([&] {
    titles.clear();
    for (pid_t c : d.Children()) titles.insert(ProcessTitle(c));
    return titles == std::set<std::string>{"awc-worker: worker 1 idle",
                                           "awc-worker: worker 2 idle",
                                           "awc-worker: scheduler leader"};
  })) << ::testing::PrintToString(titles);
  // Its own session; the master still holds none.
  EXPECT_TRUE(WaitUntil([&] {
    return db.Scalar(
               "SELECT string_agg(application_name, ',' ORDER BY "
               "application_name) FROM pg_stat_activity WHERE datname = "
               "current_database() AND application_name LIKE 'tree%'") ==
           "tree-1,tree-2,tree-scheduler";
  }));
  // On first start it creates the built-in schedules and fires them.
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.schedules WHERE builtin AND runs "
               "= 1") == 6;
  }));
  auto started = d.EventsWith("supervisor running");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(Int(started[0].get(), "scheduler"), 1);
  EXPECT_EQ(d.EventsWith("scheduler started").size(), 1u);
  EXPECT_EQ(d.EventsWith("worker started").size(), 2u);
}

TEST(SchedulerProcessTest, TurnedOffThereIsNone) {
  TestDatabase db;
  auto o = SchedulerTree(db, "tree", 3, 2);
  for (auto& [k, v] : o.env) {
    if (k == "AWC_SCHEDULER") v = "off";
  }
  DaemonProcess d(o);
  ASSERT_TRUE(d.WaitForEvent("supervisor running")) << d.Stderr();
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = "
               "current_database() AND application_name LIKE 'tree-%'") == 2;
  }));
  EXPECT_EQ(d.Children().size(), 2u);
  EXPECT_EQ(SchedulerPid(d), -1);
  EXPECT_EQ(Int(d.EventsWith("supervisor running")[0].get(), "scheduler"), -1);
  EXPECT_EQ(db.Int("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                   "current_database() AND application_name = "
                   "'tree-scheduler'"),
            0);
  // Nothing created the schedules; the workers work.
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.schedules"), 0);
  int64_t id = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }));
}

TEST(SchedulerProcessTest, AKilledSchedulerRestartsAndAStoppedOneReleases) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  int port = FreePort();
  DaemonProcess d(SchedulerTree(
      db, "tree", 2, 1,
      {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}}));
  ASSERT_TRUE(WaitUntil([&] { return Leads(d); })) << d.Stderr();
  pid_t first = SchedulerPid(d);
  ASSERT_EQ(kill(first, SIGKILL), 0);
  ASSERT_TRUE(d.WaitForEvent("scheduler started", 30, 2));
  auto exits = d.EventsWith("scheduler exited");
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(Str(exits[0].get(), "signal"), "KILL");
  EXPECT_DOUBLE_EQ(Num(exits[0].get(), "restart_in_s"), 0.1);
  // Its replacement takes over once the dead one's lease has expired, and
  // the master counted one restart.
  ASSERT_TRUE(WaitUntil([&] { return Leads(d) && SchedulerPid(d) != first; }));
  std::string metrics = HttpGet(port, "/metrics").second;
  EXPECT_EQ(MetricValue(metrics, "awc_worker_restarts_total"), 1);
  EXPECT_TRUE(WaitUntil([&] {
    return MetricValue(HttpGet(port, "/metrics").second,
                       "awc_scheduler_leader") == 1;
  }));

  // SIGTERM: the scheduler stops with the workers and gives up its lease
  // at once (a standby elsewhere would take over at its next attempt).
  d.Signal(SIGTERM);
  std::optional<int> st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
  exits = d.EventsWith("scheduler exited");
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_EQ(Int(exits[1].get(), "exit_code"), 0);
  EXPECT_EQ(db.Scalar("SELECT expires_at <= now() FROM awc.leader_leases"),
            "t");
}

TEST(SchedulerProcessTest, TheSchedulerDiesWithTheMaster) {
  TestDatabase db;
  DaemonProcess d(SchedulerTree(db, "tree", 3, 1));
  ASSERT_TRUE(WaitUntil([&] { return SchedulerPid(d) > 0; }));
  pid_t scheduler = SchedulerPid(d);
  ASSERT_EQ(kill(d.pid(), SIGKILL), 0);
  EXPECT_TRUE(WaitUntil([&] { return !ProcessAlive(scheduler); }));
}

// --- awcctl schedules
// ---------------------------------------------------------

class SchedulesCliTest : public ::testing::Test {
 protected:
  CommandResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), "schedules");
    return RunAwcctl(std::move(args), {{"DATABASE_URL", db_.url()}});
  }

  TestDatabase db_;
};

TEST_F(SchedulesCliTest, ListsTheBuiltinsAndTheLeader) {
  db_.Migrate();
  CommandResult r = Run({});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* line :
       {"NAME", "gc           @every 6h      gc_sweep           no",
        "expire       @every 1m      workspace_expire   no",
        "retain       @every 10m     snapshot_retain    no",
        "scrub        @every 1h      snapshot_scrub     no",
        "validate     @every 5m      snapshot_validate  no",
        "prune        @every 1h      -                  no",
        "leader: none yet"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  EXPECT_EQ(Run({"list"}).out, r.out);

  DaemonProcess d(SchedulerTree(db_, "host-a", 3));
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int("SELECT count(*) FROM awc.schedules WHERE runs = 1") == 6;
  })) << d.Stderr();
  r = Run({"list"});
  EXPECT_NE(r.out.find("leader: host-a-scheduler/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ok, 0 of 0 enqueued"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok, pruned 0 jobs, 0 dead letters"), std::string::npos)
      << r.out;
}

TEST_F(SchedulesCliTest, ChangesAndTheirRefusals) {
  db_.Migrate();
  EXPECT_EQ(Run({"pause", "scrub"}).out, "schedule scrub paused\n");
  EXPECT_EQ(db_.Scalar("SELECT paused FROM awc.schedules WHERE name = "
                       "'scrub'"),
            "t");
  CommandResult r = Run({"run", "scrub"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awcctl: schedule \"scrub\" is paused; resume it first\n");
  EXPECT_EQ(Run({"resume", "scrub"}).code, 0);
  EXPECT_EQ(Run({"run", "scrub"}).code, 0);
  EXPECT_EQ(db_.Scalar("SELECT next_run_at <= now() FROM awc.schedules "
                       "WHERE name = 'scrub'"),
            "t");

  EXPECT_EQ(Run({"set", "gc", "@every 90s"}).out,
            "schedule gc set to @every 90s\n");
  EXPECT_EQ(db_.Scalar("SELECT spec || ' ' || (next_run_at > now()) || ' ' "
                       "|| (extract(epoch FROM next_run_at)::bigint % 90) "
                       "FROM awc.schedules WHERE name = 'gc'"),
            "@every 90s true 0");
  r = Run({"set", "gc", "@every 5x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("schedule spec \"@every 5x\": expected @every"),
            std::string::npos)
      << r.err;

  EXPECT_EQ(
      Run({"add", "nightly", "@daily", "gc_sweep", R"({"tenant_id": "t1"})"})
          .out,
      "schedule nightly added\n");
  EXPECT_EQ(db_.Scalar("SELECT kind || ' ' || payload::text || ' ' || "
                       "(next_run_at = date_trunc('day', now()) + interval "
                       "'1 day') FROM awc.schedules WHERE name = 'nightly'"),
            "gc_sweep {\"tenant_id\": \"t1\"} true");
  r = Run({"add", "nightly", "@daily", "gc_sweep", "{}"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awcctl: a schedule named \"nightly\" already exists\n");
  r = Run({"add", "Bad Name", "@daily", "k", "{}"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("schedule name \"Bad Name\""), std::string::npos);
  r = Run({"add", "x", "@daily", "k", "[1]"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awcctl: the payload must be a JSON object\n");

  r = Run({"remove", "gc"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "awcctl: schedule \"gc\" is built in and cannot be removed; pause "
            "it instead\n");
  EXPECT_EQ(Run({"remove", "nightly"}).out, "schedule nightly removed\n");
  r = Run({"remove", "nightly"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "awcctl: no schedule named \"nightly\"\n");
  EXPECT_EQ(Run({"pause", "nope"}).code, 1);
}

TEST_F(SchedulesCliTest, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"frob"},
                                             {"pause"},
                                             {"pause", "a", "b"},
                                             {"set", "gc"},
                                             {"add", "a", "@daily", "k"},
                                             {"list", "extra"}}) {
    CommandResult r = Run(bad);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(bad) << ": " << r.err;
    EXPECT_NE(r.err.find("schedules pause|resume|run|remove NAME"),
              std::string::npos)
        << r.err;
  }
  // awcctl's own usage lists the verbs.
  CommandResult help = RunAwcctl({"--help"}, {});
  EXPECT_NE(help.out.find("schedules add NAME SPEC KIND JSON"),
            std::string::npos)
      << help.out;
}

}  // namespace
}  // namespace awc::testing
