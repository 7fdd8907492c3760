// The scheduler as a process among rows that must not stall it: a
// next_run_at it cannot compute with, one years ahead, and rows another
// session holds locked. Every other schedule fires on time all along, and
// nothing fires twice (docs/scheduler.md, "A firing", "Clamps").
#include <gtest/gtest.h>

#include "tests/support/scheduler_support.h"

namespace awc::testing {
namespace {

// The line of schedule `name` in awcctl schedules list's table, or "".
std::string LineOf(const std::string& out, const std::string& name) {
  size_t at = out.find("\n" + name + " ");
  if (at == std::string::npos) return "";
  return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

// No run of the scheduler ended in a database error (which ends the
// process and restarts it).
void ExpectNoDatabaseError(const DaemonProcess& d) {
  EXPECT_TRUE(d.EventsWith("scheduler database error").empty()) << d.Stderr();
  EXPECT_TRUE(d.EventsWith("scheduler exited").empty()) << d.Stderr();
}

TEST(SchedulerBadRowsTest, ATimeItCannotComputeWithIsSkippedAndReported) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  // Rows the table's CHECK keeps out (migration 0011), as a database whose
  // constraint was dropped holds them.
  db.Exec(
      "ALTER TABLE awc.schedules DROP CONSTRAINT IF EXISTS "
      "schedules_next_run_at_in_range");
  AddSchedule(db, "tick", "@every 1s");
  db.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, next_run_at) VALUES "
      "('minus', '@every 1h', 'test_complete', '-infinity'), "
      "('plus', '@every 1h', 'test_complete', 'infinity'), "
      "('far', '@every 1h', 'test_complete', '294270-01-01 00:00:00+00')");

  // awcctl marks them before any scheduler looked at them.
  CommandResult list =
      RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  ASSERT_EQ(list.code, 0) << list.err;
  for (const char* row : {"\nminus ", "\nplus ", "\nfar "}) {
    size_t at = list.out.find(row);
    ASSERT_NE(at, std::string::npos) << row << "\n" << list.out;
    std::string line =
        list.out.substr(at + 1, list.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(" invalid ("), std::string::npos) << line;
  }
  CommandResult json =
      RunAwcctl({"schedules", "list", "--json"}, {{"DATABASE_URL", db.url()}});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find("\"invalid\": \"next_run_at -infinity is "),
            std::string::npos)
      << json.out;

  DaemonProcess d(SchedulerTree(db, "host-a", 3));
  std::vector<const DaemonProcess*> trees = {&d};
  // Each bad row is one error run naming it, and then on its spec's grid.
  for (const char* name : {"minus", "plus", "far"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(WaitUntil([&] { return Runs(trees, name).size() == 1; }))
        << d.Stderr();
    auto e = d.EventsWith("schedule run", std::string("schedule_") + name);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(Str(e[0].get(), "level"), "error");
    EXPECT_EQ(Str(e[0].get(), "result"), "error");
    EXPECT_NE(Str(e[0].get(), "error").find("is not a time the scheduler"),
              std::string::npos)
        << Str(e[0].get(), "error");
    EXPECT_EQ(Int(e[0].get(), "enqueued"), 0);
  }
  // The others fire on time all along.
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 5; }, 60))
      << d.Stderr();
  ExpectTiled(Runs(trees, "tick"), 1);
  ExpectNoDatabaseError(d);
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.schedules WHERE name IN "
                   "('minus', 'plus', 'far') AND runs = 1 AND next_run_at > "
                   "now() AND next_run_at <= now() + interval '1 hour' AND "
                   "last_result ->> 'result' = 'error'"),
            3);
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE dedupe_key <> "
                   "'schedule:tick'"),
            0);
  list = RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(list.out.find(" invalid ("), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("error: next_run_at -infinity is not a time"),
            std::string::npos)
      << list.out;
}

TEST(SchedulerBadRowsTest, LockedRowsAreSkippedAndFireOnceWhenReleased) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 1s");
  AddSchedule(db, "held", "@daily");
  // Due since three days and a bit: its firing covers them (catch-up).
  db.Exec(
      "UPDATE awc.schedules SET next_run_at = date_trunc('day', now()) - "
      "interval '3 days' + interval '1 second' WHERE name = 'held'");
  // Another session holds the row locked, and one holds a change of a
  // built-in row uncommitted, which the scheduler's start meets.
  auto holder = db.Connect("holder");
  ASSERT_TRUE(holder->Exec("BEGIN").ok());
  ASSERT_TRUE(
      holder->Exec("SELECT 1 FROM awc.schedules WHERE name = 'held' FOR UPDATE")
          .ok());
  auto changer = db.Connect("changer");
  ASSERT_TRUE(changer->Exec("BEGIN").ok());
  ASSERT_TRUE(changer
                  ->Exec("UPDATE awc.schedules SET updated_at = now() WHERE "
                         "name = 'gc'")
                  .ok());

  DaemonProcess d(SchedulerTree(db, "host-a", 3));
  std::vector<const DaemonProcess*> trees = {&d};
  // Held for several of the scheduler's lock timeouts (a third of the
  // lease): every other schedule fires on time all along.
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "tick").size() >= 6; }, 60))
      << d.Stderr();
  EXPECT_TRUE(Runs(trees, "held").empty());
  ExpectNoDatabaseError(d);

  // Released, it fires, once, covering what it missed.
  ASSERT_TRUE(holder->Exec("COMMIT").ok());
  ASSERT_TRUE(changer->Exec("COMMIT").ok());
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "held").size() == 1; }))
      << d.Stderr();
  size_t ticks = Runs(trees, "tick").size();
  ASSERT_TRUE(
      WaitUntil([&] { return Runs(trees, "tick").size() >= ticks + 3; }));
  std::vector<ScheduleRun> held = Runs(trees, "held");
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].result, "ok");
  EXPECT_EQ(held[0].missed, 3);
  EXPECT_EQ(held[0].enqueued, 1);
  EXPECT_EQ(db.Scalar("SELECT runs || ' ' || (next_run_at = "
                      "date_trunc('day', now()) + interval '1 day') FROM "
                      "awc.schedules WHERE name = 'held'"),
            "1 true");
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE dedupe_key = "
                   "'schedule:held'"),
            1);
  ExpectTiled(Runs(trees, "tick"), 1);
  ExpectNoDatabaseError(d);
}

// A next_run_at set years ahead by SQL would stop its schedule for years:
// the leader moves it to its spec's next instant, at most one period
// ahead, and says so; awcctl marks it until then.
TEST(SchedulerBadRowsTest, ANextRunYearsAheadIsClampedToOnePeriod) {
  TestDatabase db;
  db.Migrate();
  PauseBuiltins(db);
  AddSchedule(db, "tick", "@every 1s");
  AddSchedule(db, "ahead", "@every 3s");
  AddSchedule(db, "weekly", "@weekly");
  AddSchedule(db, "near", "@daily");
  db.Exec(
      "UPDATE awc.schedules SET next_run_at = now() + interval '10 years' "
      "WHERE name IN ('ahead', 'weekly')");
  // Within its period: left alone.
  db.Exec(
      "UPDATE awc.schedules SET next_run_at = now() + interval '20 hours' "
      "WHERE name = 'near'");
  std::string near =
      db.Scalar("SELECT next_run_at FROM awc.schedules WHERE name = 'near'");

  CommandResult list =
      RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  ASSERT_EQ(list.code, 0) << list.err;
  for (const char* name : {"ahead", "weekly"}) {
    EXPECT_NE(LineOf(list.out, name).find("more than a period ahead"),
              std::string::npos)
        << list.out;
  }
  ASSERT_NE(LineOf(list.out, "near"), "") << list.out;
  EXPECT_EQ(LineOf(list.out, "near").find("more than a period"),
            std::string::npos)
      << list.out;
  CommandResult json =
      RunAwcctl({"schedules", "list", "--json"}, {{"DATABASE_URL", db.url()}});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find("\"clamp_to\": \""), std::string::npos) << json.out;

  DaemonProcess d(SchedulerTree(db, "host-a", 3));
  std::vector<const DaemonProcess*> trees = {&d};
  ASSERT_TRUE(WaitUntil([&] { return Runs(trees, "ahead").size() >= 2; }, 30))
      << d.Stderr();
  ExpectTiled(Runs(trees, "ahead"), 3);
  auto e = d.EventsWith("schedule next run clamped", "schedule_ahead");
  ASSERT_EQ(e.size(), 1u) << d.Stderr();
  EXPECT_EQ(Str(e[0].get(), "level"), "warn");
  EXPECT_EQ(Str(e[0].get(), "schedule"), "ahead");
  EXPECT_EQ(Str(e[0].get(), "spec"), "@every 3s");
  EXPECT_EQ(Int(e[0].get(), "period_s"), 3);
  EXPECT_GT(IsoMillis(Str(e[0].get(), "next_run")),
            IsoMillis(Str(e[0].get(), "clamped_to")) + 9LL * 365 * 86400000);
  // @weekly: Sunday 00:00 UTC within the coming week, not yet fired.
  ASSERT_TRUE(WaitUntil([&] {
    return !d.EventsWith("schedule next run clamped", "schedule_weekly")
                .empty();
  }));
  EXPECT_EQ(db.Scalar("SELECT next_run_at > now() AND next_run_at <= now() + "
                      "interval '7 days' AND extract(isodow FROM next_run_at "
                      "AT TIME ZONE 'UTC') = 7 AND (next_run_at AT TIME ZONE "
                      "'UTC')::time = '00:00' AND runs = 0 FROM "
                      "awc.schedules WHERE name = 'weekly'"),
            "t");
  EXPECT_EQ(
      db.Scalar("SELECT next_run_at FROM awc.schedules WHERE name = 'near'"),
      near);
  EXPECT_TRUE(
      d.EventsWith("schedule next run clamped", "schedule_near").empty());
  EXPECT_TRUE(
      d.EventsWith("schedule next run clamped", "schedule_tick").empty());
  ExpectTiled(Runs(trees, "tick"), 1);
  ExpectNoDatabaseError(d);

  list = RunAwcctl({"schedules", "list"}, {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(list.out.find("more than a period ahead"), std::string::npos)
      << list.out;
}

}  // namespace
}  // namespace awc::testing
