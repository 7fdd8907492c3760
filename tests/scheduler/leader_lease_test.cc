// Leadership across trees on one database, as real processes: one leader,
// every period fired once, a killed scheduler or tree replaced, a leader
// paused past its lease fenced off, the database away for a while, a lease
// row whose expiry lies years ahead clamped to one lease length.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/support/scheduler_support.h"

namespace awc::testing {
namespace {

// `@every 2s`, test_complete jobs.
constexpr int64_t kPeriod = 2;

int64_t SumEnqueued(const std::vector<ScheduleRun>& runs) {
  int64_t n = 0;
  for (const ScheduleRun& r : runs) n += r.enqueued;
  return n;
}

TEST(SchedulerLeaderTest, TwoTreesOneLeaderAndEveryPeriodFiresOnce) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 2s");
  int port_a = FreePort(), port_b = FreePort();
  DaemonProcess a(SchedulerTree(
      db, "host-a", 3, 1,
      {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port_a)}}));
  DaemonProcess b(SchedulerTree(
      db, "host-b", 3, 1,
      {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port_b)}}));
  std::vector<const DaemonProcess*> trees = {&a, &b};
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 8; }, 120))
      << a.Stderr() << b.Stderr();
  // Exactly one leads; the other stands by.
  ASSERT_TRUE(WaitUntil(
      [&] { return (Leads(a) && StandsBy(b)) || (Leads(b) && StandsBy(a)); }));
  const DaemonProcess& leader = Leads(a) ? a : b;
  int leader_port = Leads(a) ? port_a : port_b;
  int standby_port = Leads(a) ? port_b : port_a;
  EXPECT_EQ(db.Scalar("SELECT split_part(holder, '/', 1) FROM "
                      "awc.leader_leases WHERE name = 'scheduler'"),
            &leader == &a ? "host-a-scheduler" : "host-b-scheduler");
  EXPECT_TRUE(WaitUntil([&] {
    return MetricValue(HttpGet(leader_port, "/metrics").second,
                       "awc_scheduler_leader") == 1 &&
           MetricValue(HttpGet(standby_port, "/metrics").second,
                       "awc_scheduler_leader") == 0;
  }));
  EXPECT_GE(
      MetricValue(HttpGet(leader_port, "/metrics").second,
                  R"(awc_schedule_runs_total{schedule="tick",result="ok"})"),
      1);

  // Stop both, then account for every firing either of them made.
  a.Signal(SIGTERM);
  b.Signal(SIGTERM);
  ASSERT_TRUE(a.WaitExit().has_value());
  ASSERT_TRUE(b.WaitExit().has_value());
  std::vector<ScheduleRun> runs = Runs(trees, "tick");
  ExpectTiled(runs, kPeriod);
  for (const ScheduleRun& r : runs) {
    EXPECT_EQ(r.result, "ok");
    EXPECT_LE(r.enqueued, 1);
  }
  EXPECT_EQ(db.Int("SELECT runs FROM awc.schedules WHERE name = 'tick'"),
            static_cast<int64_t>(runs.size()));
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE dedupe_key = "
                   "'schedule:tick'"),
            SumEnqueued(runs));
}

TEST(SchedulerLeaderTest, AKilledSchedulerIsRestartedAKilledTreeReplaced) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  constexpr int kLease = 3;
  DaemonProcess a(SchedulerTree(db, "host-a", kLease));
  DaemonProcess b(SchedulerTree(db, "host-b", kLease));
  ASSERT_TRUE(WaitUntil([&] { return Leads(a) || Leads(b); }));
  DaemonProcess& first = Leads(a) ? a : b;

  // kill -9 of the leading scheduler: its master starts another.
  pid_t victim = SchedulerPid(first);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  ASSERT_TRUE(first.WaitForEvent("scheduler started", 30, 2)) << first.Stderr();
  auto exits = first.EventsWith("scheduler exited");
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(Int(exits[0].get(), "pid"), victim);
  EXPECT_EQ(Str(exits[0].get(), "signal"), "KILL");
  EXPECT_EQ(Str(exits[0].get(), "level"), "error");
  EXPECT_TRUE(WaitUntil([&] {
    pid_t p = SchedulerPid(first);
    return p > 0 && p != victim;
  }));
  // Someone leads again once the dead one's lease has expired.
  ASSERT_TRUE(WaitUntil([&] { return Leads(a) || Leads(b); }));

  // kill -9 of the leading tree, master and all: the other takes over
  // within two leases of the kill (on the database's clock).
  DaemonProcess& dead = Leads(a) ? a : b;
  DaemonProcess& other = &dead == &a ? b : a;
  std::string killed_at = db.Scalar("SELECT now()");
  ASSERT_EQ(kill(-dead.pid(), SIGKILL), 0);
  ASSERT_TRUE(dead.WaitExit().has_value());
  ASSERT_TRUE(WaitUntil([&] { return Leads(other); })) << other.Stderr();
  EXPECT_EQ(db.Scalar("SELECT split_part(holder, '/', 1) FROM "
                      "awc.leader_leases"),
            &other == &a ? "host-a-scheduler" : "host-b-scheduler");
  EXPECT_EQ(db.Scalar("SELECT acquired_at - $1::timestamptz <= "
                      "make_interval(secs => $2) FROM awc.leader_leases",
                      {killed_at, std::to_string(2 * kLease)}),
            "t")
      << db.Scalar(
             "SELECT acquired_at - $1::timestamptz FROM "
             "awc.leader_leases",
             {killed_at});
}

// Stops `d`'s scheduler with SIGSTOP while it waits in its event loop (not
// halfway through a round trip); returns its pid.
pid_t StopScheduler(DaemonProcess& d) {
  pid_t p = -1;
  EXPECT_TRUE(WaitUntil([&] {
    p = SchedulerPid(d);
    if (p < 0) return false;
    kill(p, SIGSTOP);
    WaitUntil([&] { return WaitChannel(p) == "do_signal_stop"; }, 5);
    // Stopped in its wait? (The channel of a stopped task is the stop; its
    // syscall tells where it was.)
    std::string syscall;
    FILE* f = fopen(("/proc/" + std::to_string(p) + "/syscall").c_str(), "r");
    if (f != nullptr) {
      char buf[64] = {};
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      fclose(f);
      syscall = std::string(buf, n);
    }
    // epoll_wait (232) or epoll_pwait (281) on x86-64.
    if (syscall.starts_with("232 ") || syscall.starts_with("281 ")) return true;
    kill(p, SIGCONT);
    return false;
  }));
  return p;
}

TEST(SchedulerLeaderTest, ALeaderPausedPastItsLeaseIsFencedOffAndStepsDown) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  // Hourly: it fires only when the test makes it due.
  AddSchedule(db, "tick", "@every 1h");
  auto admin = db.Connect();
  DaemonProcess a(SchedulerTree(db, "host-a", 2));
  DaemonProcess b(SchedulerTree(db, "host-b", 2));
  ASSERT_TRUE(WaitUntil(
      [&] { return (Leads(a) && StandsBy(b)) || (Leads(b) && StandsBy(a)); }));
  DaemonProcess& old = Leads(a) ? a : b;
  DaemonProcess& next = &old == &a ? b : a;
  std::vector<const DaemonProcess*> trees = {&a, &b};

  // The leader stalls past its lease; the other takes over and fires.
  pid_t stalled = StopScheduler(old);
  ASSERT_TRUE(WaitUntil([&] { return Leads(next); })) << next.Stderr();
  ASSERT_TRUE(scheduler::RunScheduleNow(*admin, "tick").ok());
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() == 1; }));

  // The new leader stalls too, and the schedule is due again when the old
  // one wakes up: its first act is that firing, which the fence refuses.
  pid_t second = StopScheduler(next);
  ASSERT_TRUE(scheduler::RunScheduleNow(*admin, "tick").ok());
  ASSERT_EQ(kill(stalled, SIGCONT), 0);
  ASSERT_TRUE(old.WaitForEvent("leadership lost")) << old.Stderr();
  auto lost = old.EventsWith("leadership lost");
  EXPECT_EQ(Str(lost[0].get(), "during"), "firing tick");
  EXPECT_EQ(Str(lost[0].get(), "worker"),
            &old == &a ? "host-a-scheduler" : "host-b-scheduler");
  // It stepped down: its own exit code, restarted at once, not a crash.
  ASSERT_TRUE(old.WaitForEvent("scheduler started", 30, 2)) << old.Stderr();
  auto exits = old.EventsWith("scheduler exited");
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(Int(exits[0].get(), "exit_code"), 75);
  EXPECT_EQ(Num(exits[0].get(), "restart_in_s"), 0);
  EXPECT_EQ(Str(exits[0].get(), "level"), "info");
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs"), 1);

  // The second run is fired once, by whoever leads now.
  ASSERT_EQ(kill(second, SIGCONT), 0);
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() == 2; }))
      << a.Stderr() << b.Stderr();
  ASSERT_TRUE(WaitUntil(
      [&] { return (Leads(a) && StandsBy(b)) || (Leads(b) && StandsBy(a)); }));
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs"), 2);
  EXPECT_EQ(db.Int("SELECT runs FROM awc.schedules WHERE name = 'tick'"), 2);
  EXPECT_EQ(Runs(trees, "tick").size(), 2u);
}

TEST(SchedulerLeaderTest, DatabaseAwayForAWhile) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 2s");
  DaemonProcess d(SchedulerTree(db, "host-a", 2));
  std::vector<const DaemonProcess*> trees = {&d};
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 2; }))
      << d.Stderr();

  db.AdminExec("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS false");
  db.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
      "datname = current_database() AND application_name LIKE 'host-a-%'");
  // The scheduler fails and is restarted with the crash-loop backoff: its
  // seventh exit comes after 0.1 + 0.2 + ... + 3.2 = 6.3 s of restart
  // delays, longer than three periods of the schedule.
  ASSERT_TRUE(d.WaitForEvent("scheduler exited", 60, 7)) << d.Stderr();
  size_t before = Runs(trees, "tick").size();
  db.AdminExec("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS true");
  auto exits = d.EventsWith("scheduler exited");
  for (size_t i = 0; i < exits.size(); ++i) {
    EXPECT_EQ(Int(exits[i].get(), "exit_code"), 1);
    if (i > 0) {
      EXPECT_DOUBLE_EQ(Num(exits[i].get(), "restart_in_s"),
                       2 * Num(exits[i - 1].get(), "restart_in_s"));
    }
  }
  EXPECT_GE(d.EventsWith("scheduler database error").size(), 7u);

  // Leadership resumes (after the old session's lease expired) and the
  // schedule goes on: the periods missed meanwhile fired once.
  ASSERT_TRUE(d.WaitForEvent("leadership acquired", 60, 2)) << d.Stderr();
  ASSERT_TRUE(
      WaitUntil([&] { return Runs(trees, "tick").size() >= before + 2; }, 60));
  d.Signal(SIGTERM);
  ASSERT_TRUE(d.WaitExit().has_value());
  std::vector<ScheduleRun> runs = Runs(trees, "tick");
  ExpectTiled(runs, kPeriod);
  int64_t missed = 0;
  for (const ScheduleRun& r : runs) missed += r.missed;
  EXPECT_GE(missed, 1);
  EXPECT_EQ(db.Int("SELECT runs FROM awc.schedules WHERE name = 'tick'"),
            static_cast<int64_t>(runs.size()));
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE dedupe_key = "
                   "'schedule:tick'"),
            SumEnqueued(runs));
}

// A lease row whose expires_at lies years ahead (set by SQL, its holder long
// gone) would keep every scheduler a standby for years: a standby cuts it
// to one lease length, says so naming the holder, and takes over once that
// has passed, under a new token.
TEST(SchedulerLeaderTest, ALeaseYearsAheadIsClampedAndTakenOverAfterIt) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 1s");
  int64_t token = db.Int(
      "INSERT INTO awc.leader_leases (name, holder, token, expires_at) "
      "VALUES ('scheduler', 'gone-scheduler/elsewhere/1', "
      "nextval('awc.leader_lease_token_seq'), now() + interval '10 years') "
      "RETURNING token");
  // awcctl marks it (by its own AWC_SCHEDULER_LEASE_SECS, 30 s here).
  CommandResult list =
      RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("more than a lease length (30 s) ahead: a standby "
                          "clamps it)"),
            std::string::npos)
      << list.out;
  CommandResult json =
      RunAwcctl({"schedules", "list", "--json"}, {{"DATABASE_URL", db.url()}});
  EXPECT_NE(json.out.find("\"beyond_lease\": true"), std::string::npos)
      << json.out;

  DaemonProcess d(SchedulerTree(db, "host-a", 3));
  std::vector<const DaemonProcess*> trees = {&d};
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 2; }, 30))
      << d.Stderr();
  auto e = d.EventsWith("leader lease clamped");
  ASSERT_EQ(e.size(), 1u) << d.Stderr();
  EXPECT_EQ(Str(e[0].get(), "level"), "warn");
  EXPECT_EQ(Str(e[0].get(), "holder"), "gone-scheduler/elsewhere/1");
  EXPECT_EQ(Int(e[0].get(), "token"), token);
  EXPECT_EQ(Int(e[0].get(), "lease_s"), 3);
  int64_t clamped_to = IsoMillis(Str(e[0].get(), "clamped_to"));
  EXPECT_GT(IsoMillis(Str(e[0].get(), "expires_at")),
            clamped_to + 9LL * 365 * 86400000);
  // Taken over under a new token, and not before the clamped lease ended.
  EXPECT_GT(db.Int("SELECT token FROM awc.leader_leases"), token);
  auto acquired = d.EventsWith("leadership acquired");
  ASSERT_EQ(acquired.size(), 1u);
  EXPECT_GE(IsoMillis(Str(acquired[0].get(), "ts")), clamped_to);
  ExpectTiled(Runs(trees, "tick"), 1);
  list = RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(list.out.find("more than a lease length"), std::string::npos)
      << list.out;
}

// A live leader whose lease row was pushed years ahead keeps leading: the
// standby's clamp leaves holder and token alone, the leader's next renewal
// is one lease length as ever, and nobody else fires meanwhile. (The
// leader is held still while the row is pushed, since its next renewal
// would otherwise undo the push before the standby looks.)
TEST(SchedulerLeaderTest, ALiveLeadersClampedLeaseStaysItsOwn) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 1s");
  constexpr int kLease = 6;
  DaemonProcess a(SchedulerTree(db, "host-a", kLease));
  DaemonProcess b(SchedulerTree(db, "host-b", kLease));
  std::vector<const DaemonProcess*> trees = {&a, &b};
  ASSERT_TRUE(WaitUntil(
      [&] { return (Leads(a) && StandsBy(b)) || (Leads(b) && StandsBy(a)); }));
  DaemonProcess& leader = Leads(a) ? a : b;
  DaemonProcess& standby = &leader == &a ? b : a;
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 2; }));
  std::string holder = db.Scalar("SELECT holder FROM awc.leader_leases");
  int64_t token = db.Int("SELECT token FROM awc.leader_leases");

  pid_t stopped = StopScheduler(leader);
  db.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() + interval '10 "
      "years'");
  ASSERT_TRUE(standby.WaitForEvent("leader lease clamped")) << standby.Stderr();
  ASSERT_EQ(kill(stopped, SIGCONT), 0);
  auto e = standby.EventsWith("leader lease clamped");
  EXPECT_EQ(Str(e[0].get(), "holder"), holder);
  EXPECT_EQ(Int(e[0].get(), "token"), token);
  EXPECT_EQ(Int(e[0].get(), "lease_s"), kLease);

  size_t ticks = Runs(trees, "tick").size();
  ASSERT_TRUE(
      WaitUntil([&] { return Runs(trees, "tick").size() >= ticks + 6; }, 30));
  EXPECT_TRUE(Leads(leader));
  EXPECT_TRUE(StandsBy(standby));
  EXPECT_EQ(db.Scalar("SELECT holder FROM awc.leader_leases"), holder);
  EXPECT_EQ(db.Int("SELECT token FROM awc.leader_leases"), token);
  EXPECT_EQ(db.Scalar("SELECT expires_at <= now() + interval '6 seconds' "
                      "FROM awc.leader_leases"),
            "t");
  EXPECT_TRUE(leader.EventsWith("leadership lost").empty());
  EXPECT_TRUE(standby.EventsWith("leadership acquired").empty());
  EXPECT_TRUE(Runs({&standby}, "tick").empty());
  ExpectTiled(Runs(trees, "tick"), 1);
}

}  // namespace
}  // namespace awc::testing
