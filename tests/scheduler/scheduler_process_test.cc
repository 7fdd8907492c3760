// The scheduler as a child of the master: one per tree unless turned off,
// its titles and session, its restarts, its clean stop; and `awcctl
// schedules`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <set>

#include "common/json.h"
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
               "= 1") == 7;
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

// --- awcctl schedules -------------------------------------------------------

class SchedulesCliTest : public ::testing::Test {
 protected:
  CommandResult Run(std::vector<std::string> args,
                    std::vector<std::pair<std::string, std::string>> env = {}) {
    args.insert(args.begin(), "schedules");
    env.push_back({"DATABASE_URL", db_.url()});
    return RunAwcctl(std::move(args), std::move(env));
  }
  // `awcctl schedules ... --json`, parsed.
  JsonPtr Json(std::vector<std::string> args) {
    args.push_back("--json");
    CommandResult r = Run(std::move(args));
    EXPECT_EQ(r.code, 0) << r.err;
    Result<JsonPtr> j = ParseJson(r.out);
    EXPECT_TRUE(j.ok()) << r.out;
    return j.ok() ? std::move(*j) : JsonPtr(json_object());
  }
  // The last line of standard error (the first names the target).
  static std::string LastError(const CommandResult& r) {
    std::string err = r.err;
    if (err.ends_with("\n")) err.pop_back();
    return err.substr(err.rfind('\n') + 1);
  }

  TestDatabase db_;
};

TEST_F(SchedulesCliTest, ListsTheBuiltinsAndTheLeader) {
  db_.Migrate();
  CommandResult r = Run({});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("NAME  ")) << r.out;
  for (const char* row : {"gc ", "expire ", "retain ", "scrub ", "validate ",
                          "reconcile ", "prune "}) {
    EXPECT_NE(r.out.find("\n" + std::string(row)), std::string::npos)
        << row << "\n"
        << r.out;
  }
  EXPECT_TRUE(r.out.ends_with("\nleader: none yet\n")) << r.out;
  EXPECT_EQ(Run({"list"}).out, r.out);
  // Listed as they will be created; the listing only reads.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules"), 0);

  // The same in JSON: every built-in at its default, never run.
  JsonPtr doc = Json({"list"});
  json_t* rows = json_object_get(doc.get(), "schedules");
  ASSERT_EQ(json_array_size(rows), 7u);
  std::vector<std::string> seen;
  for (size_t i = 0; i < json_array_size(rows); ++i) {
    json_t* row = json_array_get(rows, i);
    std::string kind =
        json_is_null(json_object_get(row, "kind")) ? "-" : Str(row, "kind");
    seen.push_back(Str(row, "name") + " " + Str(row, "spec") + " " + kind);
    EXPECT_TRUE(json_is_true(json_object_get(row, "builtin")));
    EXPECT_TRUE(json_is_false(json_object_get(row, "paused")));
    EXPECT_TRUE(json_is_null(json_object_get(row, "last_result")));
    EXPECT_TRUE(json_is_null(json_object_get(row, "next_run_at")));
    EXPECT_EQ(Int(row, "runs"), 0);
  }
  EXPECT_EQ(
      seen,
      (std::vector<std::string>{
          "expire @every 1m workspace_expire", "gc @every 6h gc_sweep",
          "prune @every 1h -", "reconcile @daily store_reconcile",
          "retain @every 10m snapshot_retain", "scrub @every 1h snapshot_scrub",
          "validate @every 5m snapshot_validate"}));
  EXPECT_TRUE(json_is_null(json_object_get(doc.get(), "leader")));

  DaemonProcess d(SchedulerTree(db_, "host-a", 3));
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int("SELECT count(*) FROM awc.schedules WHERE runs = 1") == 7;
  })) << d.Stderr();
  r = Run({"list"});
  EXPECT_NE(r.out.find("\nleader: host-a-scheduler/"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ok, 0 of 0 enqueued"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok, pruned 0 jobs, 0 dead letters"), std::string::npos)
      << r.out;
  doc = Json({});
  json_t* leader = json_object_get(doc.get(), "leader");
  ASSERT_TRUE(json_is_object(leader)) << r.out;
  EXPECT_TRUE(Str(leader, "holder").starts_with("host-a-scheduler/"));
  EXPECT_TRUE(json_is_false(json_object_get(leader, "expired")));
  json_t* first = json_array_get(json_object_get(doc.get(), "schedules"), 0);
  EXPECT_EQ(Str(json_object_get(first, "last_result"), "result"), "ok");
}

TEST_F(SchedulesCliTest, ChangesAndTheirRefusals) {
  db_.Migrate();
  EXPECT_EQ(Run({"pause", "scrub"}).out, "schedule scrub paused\n");
  EXPECT_EQ(db_.Scalar("SELECT paused FROM awc.schedules WHERE name = "
                       "'scrub'"),
            "t");
  CommandResult r = Run({"run", "scrub"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastError(r),
            "awcctl: schedule \"scrub\" is paused; resume it first");
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
  // Arguments are checked before connecting: usage errors.
  r = Run({"set", "gc", "@every 5x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("schedule spec \"@every 5x\": expected @every"),
            std::string::npos)
      << r.err;

  JsonPtr added =
      Json({"add", "nightly", "@daily", "gc_sweep", R"({"tenant_id": "t1"})"});
  json_t* row = json_object_get(added.get(), "schedule");
  ASSERT_TRUE(json_is_object(row));
  EXPECT_EQ(Str(row, "name"), "nightly");
  EXPECT_EQ(Str(json_object_get(row, "payload"), "tenant_id"), "t1");
  EXPECT_TRUE(json_is_false(json_object_get(row, "builtin")));
  EXPECT_EQ(db_.Scalar("SELECT kind || ' ' || payload::text || ' ' || "
                       "(next_run_at = date_trunc('day', now()) + interval "
                       "'1 day') FROM awc.schedules WHERE name = 'nightly'"),
            "gc_sweep {\"tenant_id\": \"t1\"} true");
  r = Run({"add", "nightly", "@hourly", "gc_sweep", R"({"tenant_id": "t2"})"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastError(r),
            "awcctl: a schedule named \"nightly\" already exists");
  r = Run({"add", "Bad Name", "@daily", "gc_sweep", "{}"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.err.starts_with("awcctl: schedule name \"Bad Name\"")) << r.err;
  r = Run({"add", "x", "@daily", "gc_sweep", "[1]"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.err.starts_with("awcctl: JSON must be a JSON object\n"))
      << r.err;
  // The kind and payload are checked as enqueue checks them, unless forced.
  r = Run({"add", "x", "@daily", "gc_sweep", "{}"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("tenant_id"), std::string::npos) << r.err;
  r = Run({"add", "x", "@daily", "future_kind", "{}"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown job kind \"future_kind\" (known: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; --force adds it anyway"), std::string::npos);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules WHERE name = 'x'"), 0);
  EXPECT_EQ(Run({"add", "x", "@daily", "future_kind", "{}", "--force"}).out,
            "schedule x added\n");

  r = Run({"remove", "gc"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastError(r),
            "awcctl: schedule \"gc\" is built in and cannot be removed; "
            "pause it instead");
  EXPECT_EQ(Run({"remove", "nightly"}).out, "schedule nightly removed\n");
  r = Run({"remove", "nightly"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(LastError(r), "awcctl: no schedule named \"nightly\"");
  EXPECT_EQ(Run({"pause", "nope"}).code, 1);
  EXPECT_EQ(Run({"pause", "No"}).code, 2);
}

TEST_F(SchedulesCliTest, ForcedTheLimitsOfEveryJobStillHold) {
  db_.Migrate();
  // --force skips the kind and payload check, not the limits the database
  // keeps on every job: usage errors naming the argument, nothing stored.
  CommandResult r =
      Run({"add", "x", "@daily", std::string(129, 'k'), "{}", "--force"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(
      r.err.starts_with("awcctl: KIND is longer than 128 bytes (129)\n"))
      << r.err;
  r = Run({"add", "x", "@daily", "newer_kind", "[]", "--force"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.err.starts_with("awcctl: JSON must be a JSON object\n"))
      << r.err;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules WHERE NOT builtin"), 0);
  // 128 bytes, a multi-byte character included, are fine.
  std::string longest = std::string(126, 'k') + "\xc3\xa9";
  r = Run({"add", "x", "@daily", longest, "{}", "--force"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(db_.Scalar("SELECT kind FROM awc.schedules WHERE name = 'x'"),
            longest);
  // And the table keeps them whoever writes.
  auto conn = db_.Connect();
  for (const auto& [sql, constraint] :
       std::vector<std::pair<std::string, std::string>>{
           {"INSERT INTO awc.schedules (name, spec, kind) VALUES ('y', "
            "'@daily', repeat('k', 129))",
            "schedules_kind_at_most_128_bytes"},
           {"UPDATE awc.schedules SET kind = kind || 'k' WHERE name = 'x'",
            "schedules_kind_at_most_128_bytes"},
           {"INSERT INTO awc.schedules (name, spec, kind, payload) VALUES "
            "('y', '@daily', 'k', '[1]')",
            "schedules_payload_is_object"},
           {"UPDATE awc.schedules SET payload = 'null' WHERE name = 'x'",
            "schedules_payload_is_object"}}) {
    auto res = conn->Exec(sql);
    ASSERT_FALSE(res.ok()) << sql;
    EXPECT_NE(res.status().message().find(constraint), std::string::npos)
        << res.status().message();
  }
}

TEST_F(SchedulesCliTest, ChangesOnAProductionDatabasePassTheGuard) {
  db_.Migrate();
  // No terminal to ask on: refused, exit 3, nothing changed.
  CommandResult r = Run({"pause", "gc"}, {{"AWC_PRODUCTION", "1"}});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules WHERE paused"), 0);
  // Listing only reads: never asked.
  EXPECT_EQ(Run({"list"}, {{"AWC_PRODUCTION", "1"}}).code, 0);
  // --yes goes on.
  r = Run({"pause", "gc", "--yes"}, {{"AWC_PRODUCTION", "1"}});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(db_.Scalar("SELECT paused FROM awc.schedules WHERE name = 'gc'"),
            "t");
}

}  // namespace
}  // namespace awc::testing
