// One firing of a schedule against a real database (scheduler/firing.h):
// fenced on the leader's token, whole or not at all, catch-up once, errors
// recorded as runs; and the built-in rows, created once and then the
// operator's.
#include <gtest/gtest.h>

#include <thread>

#include "common/env.h"
#include "scheduler/firing.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/schedule_admin.h"
#include "scheduler/schedules.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using scheduler::DueSchedule;
using scheduler::RunReport;

class FiringTest : public ::testing::Test {
 protected:
  FiringTest() {
    db_.Migrate();
    conn_ = db_.Connect("leader");
    lease_ = std::make_unique<scheduler::LeaderLease>(
        conn_.get(), scheduler::sql::kSchedulerLease, "host-a/1", 30);
    Result<bool> got = lease_->Acquire();
    EXPECT_TRUE(got.ok() && *got) << got.status().ToString();
  }

  Result<std::optional<RunReport>> Fire(const std::string& name,
                                        bool builtin = false) {
    return scheduler::FireSchedule(
        *conn_, *lease_, DueSchedule{name, builtin}, options_,
        [] { return Result<bool>(true); }, Env::Default());
  }
  void Add(const std::string& name, const std::string& spec) {
    auto admin = db_.Connect();
    Status s = scheduler::AddSchedule(*admin, name, spec, "test_complete",
                                      R"({"n": 1})");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // Moves a schedule's next run `secs` into the past.
  void DueSince(const std::string& name, const std::string& interval) {
    db_.Exec("UPDATE awc.schedules SET next_run_at = now() - interval '" +
                 interval + "' WHERE name = $1",
             {name});
  }
  int64_t Jobs() { return db_.Int("SELECT count(*) FROM awc.jobs"); }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<scheduler::LeaderLease> lease_;
  scheduler::SchedulerOptions options_;
};

TEST_F(FiringTest, FiresOnceAndMovesToTheNextInstantOfItsSpec) {
  Add("tick", "@daily");
  // Not due yet: the first run is the next midnight (UTC). (Days, not
  // hours: a test that straddles the boundary would see another grid.)
  EXPECT_EQ(db_.Scalar("SELECT next_run_at = date_trunc('day', now()) + "
                       "interval '1 day' FROM awc.schedules WHERE name = "
                       "'tick'"),
            "t");
  Result<std::optional<RunReport>> r = Fire("tick");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(Jobs(), 0);

  DueSince("tick", "1 second");
  r = Fire("tick");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->has_value());
  EXPECT_TRUE((*r)->ok);
  EXPECT_EQ((*r)->enqueued, 1);
  EXPECT_EQ((*r)->missed, 0);
  EXPECT_EQ(db_.Scalar("SELECT kind || ' ' || payload::text || ' ' || "
                       "dedupe_key FROM awc.jobs"),
            "test_complete {\"n\": 1} schedule:tick");
  EXPECT_EQ(db_.Scalar("SELECT runs || ' ' || (next_run_at = "
                       "date_trunc('day', now()) + interval '1 day') || ' ' "
                       "|| (last_result ->> 'result') || ' ' || (last_result "
                       "->> 'enqueued') FROM awc.schedules WHERE name = "
                       "'tick'"),
            "1 true ok 1");
  // Fired: no longer due.
  r = Fire("tick");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(Jobs(), 1);
}

TEST_F(FiringTest, AMissedStretchFiresOnceOnCatchUp) {
  Add("tick", "@daily");
  // Due since three periods and a bit: one firing covers them all.
  db_.Exec(
      "UPDATE awc.schedules SET next_run_at = date_trunc('day', now()) - "
      "interval '3 days' WHERE name = 'tick'");
  Result<std::optional<RunReport>> r = Fire("tick");
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_EQ((*r)->missed, 3);
  EXPECT_EQ(Jobs(), 1);
  EXPECT_EQ(db_.Scalar("SELECT (next_run_at = date_trunc('day', now()) + "
                       "interval '1 day') || ' ' || (last_result ->> "
                       "'missed') FROM awc.schedules WHERE name = 'tick'"),
            "true 3");
  r = Fire("tick");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(FiringTest, AFormerLeaderIsFencedOffAndWritesNothing) {
  Add("tick", "@every 1h");
  DueSince("tick", "1 second");
  // Someone takes over after the lease expired.
  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() - interval '1 second'");
  auto other_conn = db_.Connect("other");
  scheduler::LeaderLease other(other_conn.get(),
                               scheduler::sql::kSchedulerLease, "host-b/2", 30);
  Result<bool> got = other.Acquire();
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_GT(other.token(), lease_->token());

  std::string before =
      db_.Scalar("SELECT next_run_at FROM awc.schedules WHERE name = 'tick'");
  Result<std::optional<RunReport>> r = Fire("tick");
  EXPECT_TRUE(scheduler::IsLeadershipLost(r.status())) << r.status().ToString();
  EXPECT_FALSE(lease_->held());
  EXPECT_EQ(Jobs(), 0);
  EXPECT_EQ(
      db_.Scalar("SELECT next_run_at FROM awc.schedules WHERE name = 'tick'"),
      before);
  // Its renewal fails too; the new leader's firing goes through.
  Result<bool> renewed = lease_->Renew();
  ASSERT_TRUE(renewed.ok());
  EXPECT_FALSE(*renewed);
  r = scheduler::FireSchedule(
      *other_conn, other, DueSchedule{"tick", false}, options_,
      [] { return Result<bool>(true); }, Env::Default());
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_EQ(Jobs(), 1);
}

TEST_F(FiringTest, ATakeoverWaitsForAFiringInFlight) {
  Add("tick", "@every 1h");
  DueSince("tick", "1 second");
  // The lease has expired, but nobody took it over yet: the leader's token
  // is still current, and its transaction holds the fence...
  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() - interval '1 second'");
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  ASSERT_TRUE(lease_->Fence().ok());
  // ...so a takeover waits for that transaction to commit.
  auto other_conn = db_.Connect("other");
  scheduler::LeaderLease other(other_conn.get(),
                               scheduler::sql::kSchedulerLease, "host-b/2", 30);
  Result<bool> got = Status::Internal("not run");
  std::thread taker([&] { got = other.Acquire(); });
  EXPECT_TRUE(WaitUntil([&] {
    return db_.Scalar(
               "SELECT wait_event_type FROM pg_stat_activity WHERE "
               "application_name = 'other'") == "Lock";
  }));
  ASSERT_TRUE(conn_->Exec("COMMIT").ok());
  taker.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got);
}

TEST_F(FiringTest, PausedAndChangedSchedulesAreNotFired) {
  Add("tick", "@every 1h");
  DueSince("tick", "1 second");
  auto admin = db_.Connect();
  ASSERT_TRUE(scheduler::PauseSchedule(*admin, "tick", true).ok());
  Result<std::optional<RunReport>> r = Fire("tick");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  ASSERT_TRUE(scheduler::PauseSchedule(*admin, "tick", false).ok());
  // Resumed while overdue: it fires once.
  r = Fire("tick");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ(Jobs(), 1);
}

TEST_F(FiringTest, ErrorsAreRecordedAsRuns) {
  // A spec the table accepts but the scheduler does not.
  db_.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, next_run_at) VALUES "
      "('zero', '@every 0s', 'test_complete', now())");
  Result<std::optional<RunReport>> r = Fire("zero");
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_FALSE((*r)->ok);
  EXPECT_NE((*r)->error.find("at least 1s"), std::string::npos);
  EXPECT_EQ(db_.Scalar("SELECT (last_result ->> 'result') || ' ' || "
                       "(next_run_at > now() + interval '59 minutes') FROM "
                       "awc.schedules WHERE name = 'zero'"),
            "error true");
  // A planner whose statement fails: the run is recorded, nothing else.
  db_.Exec(
      "CREATE FUNCTION awc.test_refuse() RETURNS trigger LANGUAGE plpgsql AS "
      "$$ BEGIN RAISE EXCEPTION 'refused by test'; END $$");
  db_.Exec(
      "CREATE TRIGGER test_refuse BEFORE INSERT ON awc.jobs FOR EACH ROW "
      "WHEN (NEW.kind = 'test_refused') EXECUTE FUNCTION awc.test_refuse()");
  auto admin = db_.Connect();
  ASSERT_TRUE(
      scheduler::AddSchedule(*admin, "boom", "@every 1m", "test_refused", "{}")
          .ok());
  DueSince("boom", "1 second");
  r = Fire("boom");
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  EXPECT_FALSE((*r)->ok);
  EXPECT_NE((*r)->error.find("refused by test"), std::string::npos)
      << (*r)->error;
  EXPECT_EQ(Jobs(), 0);
  EXPECT_EQ(db_.Scalar("SELECT runs || ' ' || (last_result ->> 'result') || "
                       "' ' || (next_run_at > now()) FROM awc.schedules WHERE "
                       "name = 'boom'"),
            "1 error true");
  // The session survived: the lease still works.
  EXPECT_TRUE(lease_->Fence().ok());
}

TEST_F(FiringTest, ATimeItCannotComputeWithIsAnErrorRunOnItsGrid) {
  // Rows the table's CHECK keeps out (migration 0011), as a database whose
  // constraint was dropped holds them: no job, an error run naming the
  // value, and the next run the spec's first instant after now.
  db_.Exec(
      "ALTER TABLE awc.schedules DROP CONSTRAINT IF EXISTS "
      "schedules_next_run_at_in_range");
  db_.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, next_run_at) VALUES "
      "('minus', '@hourly', 'test_complete', '-infinity'), "
      "('plus', '@hourly', 'test_complete', 'infinity')");
  for (const char* name : {"minus", "plus"}) {
    SCOPED_TRACE(name);
    Result<std::optional<RunReport>> r = Fire(name);
    ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
    EXPECT_FALSE((*r)->ok);
    EXPECT_EQ((*r)->error, "next_run_at " +
                               std::string(name[0] == 'm' ? "-" : "") +
                               "infinity is not a time the scheduler can fire "
                               "at (1970 to 9999, UTC); skipped");
    EXPECT_EQ(db_.Scalar("SELECT runs || ' ' || (last_result ->> 'result') || "
                         "' ' || (next_run_at = date_trunc('hour', now()) + "
                         "interval '1 hour') FROM awc.schedules WHERE name = "
                         "$1",
                         {name}),
              "1 error true");
    r = Fire(name);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value());
  }
  EXPECT_EQ(Jobs(), 0);
  EXPECT_TRUE(lease_->Fence().ok());
}

TEST_F(FiringTest, BuiltinsAreCreatedOnceAndThenTheOperators) {
  ASSERT_TRUE(scheduler::EnsureBuiltins(*conn_).ok());
  EXPECT_EQ(db_.Scalar("SELECT string_agg(name || '=' || spec || '/' || "
                       "coalesce(kind, '-'), ' ' ORDER BY name) FROM "
                       "awc.schedules WHERE builtin"),
            "expire=@every 1m/workspace_expire gc=@every 6h/gc_sweep "
            "prune=@every 1h/- reconcile=@daily/store_reconcile "
            "retain=@every 10m/snapshot_retain "
            "scrub=@every 1h/snapshot_scrub "
            "validate=@every 5m/snapshot_validate");
  // Due at once on first start.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules WHERE next_run_at <= "
                    "now()"),
            7);
  auto admin = db_.Connect();
  ASSERT_TRUE(scheduler::SetScheduleSpec(*admin, "gc", "@every 2h").ok());
  ASSERT_TRUE(scheduler::PauseSchedule(*admin, "scrub", true).ok());
  ASSERT_TRUE(scheduler::EnsureBuiltins(*conn_).ok());
  EXPECT_EQ(db_.Scalar("SELECT spec FROM awc.schedules WHERE name = 'gc'"),
            "@every 2h");
  EXPECT_EQ(db_.Scalar("SELECT paused FROM awc.schedules WHERE name = "
                       "'scrub'"),
            "t");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schedules"), 7);
}

TEST_F(FiringTest, TheTableRefusesWhatNoSchedulerCouldRun) {
  for (const char* bad :
       {"INSERT INTO awc.schedules (name, spec, kind) VALUES ('x', '@monthly', "
        "'k')",
        "INSERT INTO awc.schedules (name, spec, kind) VALUES ('x', '@every ', "
        "'k')",
        "INSERT INTO awc.schedules (name, spec, kind) VALUES ('X', '@hourly', "
        "'k')",
        "INSERT INTO awc.schedules (name, spec) VALUES ('x', '@hourly')",
        "INSERT INTO awc.schedules (name, spec, kind) VALUES ('x', '@hourly', "
        "'')"}) {
    EXPECT_FALSE(conn_->Exec(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace awc::testing
