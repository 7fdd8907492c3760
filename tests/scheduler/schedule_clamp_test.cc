// The bounds on what lies ahead, against a real database
// (docs/scheduler.md, "Clamps"): a next run more than a period ahead moved
// to its spec's next instant, for each kind of spec, by the leader only,
// past rows another session holds; a lease expiry more than one lease
// length ahead cut to one, with holder and token left alone, so the
// fencing rules hold: the holder keeps fencing and renewing, and a takeover
// still waits for the expiry and takes a new token.
#include "scheduler/schedule_clamp.h"

#include <gtest/gtest.h>

#include <map>

#include "scheduler/leader_lease.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/schedule_admin.h"
#include "scheduler/spec.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using scheduler::LeaderLease;
using scheduler::LeaseClamp;
using scheduler::ScheduleClamp;

class ClampTest : public ::testing::Test {
 protected:
  ClampTest() {
    db_.Migrate();
    conn_ = db_.Connect("leader");
    lease_ = std::make_unique<LeaderLease>(
        conn_.get(), scheduler::sql::kSchedulerLease, "host-a/1", 30);
    Result<bool> got = lease_->Acquire();
    EXPECT_TRUE(got.ok() && *got) << got.status().ToString();
  }

  void Add(const std::string& name, const std::string& spec) {
    auto admin = db_.Connect();
    Status s = scheduler::AddSchedule(*admin, name, spec, "test_complete",
                                      R"({"n": 1})");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Ahead(const std::string& name, const std::string& interval) {
    db_.Exec("UPDATE awc.schedules SET next_run_at = now() + interval '" +
                 interval + "' WHERE name = $1",
             {name});
  }
  std::string NextRun(const std::string& name) {
    return db_.Scalar("SELECT next_run_at FROM awc.schedules WHERE name = $1",
                      {name});
  }
  std::vector<std::string> Clamp(LeaderLease& lease, db::PgConn& conn) {
    Result<std::vector<ScheduleClamp>> cut =
        scheduler::ClampSchedules(conn, lease);
    EXPECT_TRUE(cut.ok()) << cut.status().ToString();
    std::vector<std::string> names;
    if (cut.ok()) {
      for (const ScheduleClamp& c : *cut) names.push_back(c.schedule);
    }
    return names;
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<LeaderLease> lease_;
};

TEST_F(ClampTest, ANextRunBeyondItsPeriodGoesToItsSpecsNextInstant) {
  Add("ninety", "@every 90s");
  Add("hourly", "@hourly");
  Add("daily", "@daily");
  Add("weekly", "@weekly");
  Add("near", "@weekly");
  Add("paused", "@hourly");
  for (const char* name : {"ninety", "hourly", "daily", "weekly", "paused"}) {
    Ahead(name, "10 years");
  }
  db_.Exec("UPDATE awc.schedules SET paused = true WHERE name = 'paused'");
  Ahead("near", "6 days");  // within its period: left alone
  std::string near = NextRun("near");

  Result<std::vector<ScheduleClamp>> cut =
      scheduler::ClampSchedules(*conn_, *lease_);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  std::map<std::string, ScheduleClamp> by_name;
  for (const ScheduleClamp& c : *cut) by_name[c.schedule] = c;
  EXPECT_EQ(by_name.size(), 5u);
  EXPECT_EQ(by_name.count("near"), 0u);
  EXPECT_EQ(by_name["ninety"].period_secs, 90);
  EXPECT_EQ(by_name["weekly"].period_secs, 7 * 86400);
  EXPECT_EQ(by_name["weekly"].spec, "@weekly");
  for (const auto& [name, c] : by_name) {
    SCOPED_TRACE(name);
    EXPECT_GT(c.from_us - c.to_us, 9LL * 365 * 86400 * scheduler::kMicros);
    EXPECT_EQ(db_.Int("SELECT (extract(epoch FROM next_run_at) * "
                      "1000000)::bigint FROM awc.schedules WHERE name = $1",
                      {name}),
              c.to_us);
    // Ahead by at most one period, on the spec's grid.
    EXPECT_EQ(db_.Scalar("SELECT next_run_at > now() AND next_run_at <= "
                         "now() + make_interval(secs => $2::float8) AND "
                         "extract(epoch FROM next_run_at)::bigint % "
                         "$2::bigint = "
                         "CASE WHEN spec = '@weekly' THEN 3 * 86400 ELSE 0 "
                         "END FROM awc.schedules WHERE name = $1",
                         {name, std::to_string(c.period_secs)}),
              "t");
  }
  EXPECT_EQ(NextRun("near"), near);
  EXPECT_EQ(db_.Scalar("SELECT paused FROM awc.schedules WHERE name = "
                       "'paused'"),
            "t");
  // Nothing fired: only next_run_at moved.
  EXPECT_EQ(db_.Int("SELECT sum(runs) FROM awc.schedules"), 0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 0);
  // The next look finds nothing more to cut.
  EXPECT_EQ(Clamp(*lease_, *conn_), std::vector<std::string>{});
}

TEST_F(ClampTest, ASpecThatDoesNotParseBecomesDueForItsErrorRun) {
  // The table's CHECK accepts it; the parser does not (docs/scheduler.md,
  // "A firing").
  db_.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, next_run_at) VALUES "
      "('zero', '@every 0s', 'test_complete', now() + interval '5 years'), "
      "('retried', '@every 0s', 'test_complete', now() + interval '50 "
      "minutes')");
  EXPECT_EQ(Clamp(*lease_, *conn_), std::vector<std::string>{"zero"});
  EXPECT_EQ(db_.Scalar("SELECT next_run_at <= now() FROM awc.schedules "
                       "WHERE name = 'zero'"),
            "t");
  EXPECT_EQ(db_.Scalar("SELECT next_run_at > now() FROM awc.schedules "
                       "WHERE name = 'retried'"),
            "t");
}

TEST_F(ClampTest, AFormerLeaderCutsNothing) {
  Add("far", "@hourly");
  Ahead("far", "10 years");
  std::string before = NextRun("far");
  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() - interval '1 second'");
  auto other_conn = db_.Connect("other");
  LeaderLease other(other_conn.get(), scheduler::sql::kSchedulerLease,
                    "host-b/2", 30);
  ASSERT_TRUE(*other.Acquire());

  Result<std::vector<ScheduleClamp>> cut =
      scheduler::ClampSchedules(*conn_, *lease_);
  EXPECT_TRUE(scheduler::IsLeadershipLost(cut.status()))
      << cut.status().ToString();
  EXPECT_EQ(NextRun("far"), before);
  EXPECT_EQ(Clamp(other, *other_conn), std::vector<std::string>{"far"});
}

TEST_F(ClampTest, ARowAnotherSessionHoldsIsPassedOverNotWaitedFor) {
  Add("held", "@hourly");
  Add("free", "@hourly");
  Ahead("held", "10 years");
  Ahead("free", "10 years");
  auto holder = db_.Connect("holder");
  ASSERT_TRUE(holder->Exec("BEGIN").ok());
  ASSERT_TRUE(
      holder->Exec("SELECT 1 FROM awc.schedules WHERE name = 'held' FOR UPDATE")
          .ok());
  EXPECT_EQ(Clamp(*lease_, *conn_), std::vector<std::string>{"free"});
  ASSERT_TRUE(holder->Exec("COMMIT").ok());
  EXPECT_EQ(Clamp(*lease_, *conn_), std::vector<std::string>{"held"});
}

TEST_F(ClampTest, ALeaseBeyondOneLeaseLengthIsCutAndTheFencingRulesHold) {
  int64_t token = lease_->token();
  // Within one lease length: nothing to cut.
  auto standby_conn = db_.Connect("standby");
  LeaderLease standby(standby_conn.get(), scheduler::sql::kSchedulerLease,
                      "host-b/2", 30);
  Result<std::optional<LeaseClamp>> none = standby.Clamp();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() + interval '10 "
      "years'");
  Result<std::optional<LeaseClamp>> cut = standby.Clamp();
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  ASSERT_TRUE(cut->has_value());
  EXPECT_EQ((*cut)->holder, "host-a/1");
  EXPECT_EQ((*cut)->token, token);
  EXPECT_EQ((*cut)->lease_secs, 30);
  EXPECT_EQ((*cut)->expires_at.substr(0, 4),
            db_.Scalar("SELECT (extract(year FROM now()) + 10)::int::text"));
  EXPECT_EQ(db_.Scalar("SELECT holder || ' ' || token || ' ' || (expires_at "
                       "> now() AND expires_at <= now() + interval '30 "
                       "seconds') FROM awc.leader_leases"),
            "host-a/1 " + std::to_string(token) + " true");
  EXPECT_FALSE(standby.held());

  // Still the holder's: no takeover before the cut expiry; the holder's
  // fence and renewal still hold.
  Result<bool> took = standby.Acquire();
  ASSERT_TRUE(took.ok());
  EXPECT_FALSE(*took);
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  EXPECT_TRUE(lease_->Fence().ok());
  ASSERT_TRUE(conn_->Exec("COMMIT").ok());
  Result<bool> renewed = lease_->Renew();
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(*renewed);

  // Once it has expired (the holder gone), the takeover takes a new token
  // and the old holder is fenced off.
  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() - interval '1 second'");
  took = standby.Acquire();
  ASSERT_TRUE(took.ok() && *took);
  EXPECT_GT(standby.token(), token);
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  EXPECT_TRUE(scheduler::IsLeadershipLost(lease_->Fence()));
  ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
}

TEST_F(ClampTest, AnInfiniteLeaseIsCutToo) {
  db_.Exec("UPDATE awc.leader_leases SET expires_at = 'infinity'");
  auto standby_conn = db_.Connect("standby");
  LeaderLease standby(standby_conn.get(), scheduler::sql::kSchedulerLease,
                      "host-b/2", 5);
  Result<std::optional<LeaseClamp>> cut = standby.Clamp();
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  ASSERT_TRUE(cut->has_value());
  EXPECT_EQ((*cut)->expires_at, "infinity");
  EXPECT_EQ((*cut)->lease_secs, 5);
  EXPECT_EQ(db_.Scalar("SELECT expires_at <= now() + interval '5 seconds' "
                       "FROM awc.leader_leases"),
            "t");
}

}  // namespace
}  // namespace awc::testing
