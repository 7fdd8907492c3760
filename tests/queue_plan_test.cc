// The plans of the queue's hot statements, checked on a realistic table
// state: statistics taken while nothing ran, then a drained backlog leaving
// dead RUNNING versions behind. Plan shapes, not timings.
#include <gtest/gtest.h>

#include "queue/queue_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class QueuePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.Migrate();
    db_.Exec(
        "INSERT INTO awc.jobs (kind, payload) SELECT 'k', '{}' FROM "
        "generate_series(1, 20000)");
    db_.Exec("ANALYZE awc.jobs");
    db_.Exec(
        "UPDATE awc.jobs SET state = 'RUNNING', lease_token = id, "
        "locked_until = now() + interval '5 minutes' WHERE id <= 15000");
    db_.Exec(
        "UPDATE awc.jobs SET state = 'COMPLETED', locked_until = NULL "
        "WHERE id < 15000");
    conn_ = db_.Connect();
    ASSERT_TRUE(conn_->Exec("SET plan_cache_mode = force_generic_plan").ok());
  }

  // The generic plan of `sql` (as prepared statements run it), as JSON text.
  std::string Plan(const std::string& sql, const std::string& args) {
    EXPECT_TRUE(conn_->Exec("DEALLOCATE ALL").ok());
    auto prep = conn_->Exec("PREPARE s AS " + sql);
    EXPECT_TRUE(prep.ok()) << prep.status().message();
    auto r = conn_->Exec("EXPLAIN (FORMAT JSON) EXECUTE s(" + args + ")");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetString(0, 0) : "";
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_F(QueuePlanTest, RecordingFindsTheJobByPrimaryKey) {
  for (const auto& [update, args] :
       {std::pair{queue::sql::kComplete, "15000, 15000, '{}'"},
        std::pair{queue::sql::kFail, "15000, 15000, 'e', 'handler_failed'"}}) {
    std::string plan = Plan(queue::sql::Fenced(update), args);
    EXPECT_NE(plan.find("\"Index Name\": \"jobs_pkey\""), std::string::npos)
        << plan;
  }
  std::string renew = Plan(queue::sql::kRenewLease, "15000, 15000, 300");
  EXPECT_NE(renew.find("\"Index Name\": \"jobs_pkey\""), std::string::npos)
      << renew;
}

TEST_F(QueuePlanTest, ClaimAndReclaimUseTheirPartialIndexes) {
  std::string claim = Plan(queue::sql::kClaim, "'w-1', 300");
  EXPECT_NE(claim.find("\"Index Name\": \"jobs_claim_idx\""), std::string::npos)
      << claim;
  std::string reclaim = Plan(queue::sql::kReclaimExpired, "100");
  EXPECT_NE(reclaim.find("\"Index Name\": \"jobs_lease_idx\""),
            std::string::npos)
      << reclaim;
}

TEST_F(QueuePlanTest, TheDepthSampleReadsOnlyTheLiveStates) {
  // A table of mostly finished jobs, as a fleet's is between prunes: 100
  // PENDING, one RUNNING and 11 FAILED among 115000. The sample must not
  // scan the table.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, state, finished_at) SELECT 'k', "
      "'{}', 'COMPLETED', now() FROM generate_series(1, 100000)");
  db_.Exec(
      "UPDATE awc.jobs SET state = 'COMPLETED', finished_at = now() "
      "WHERE state = 'PENDING' AND id > 15100 AND id <= 20000");
  db_.Exec(
      "UPDATE awc.jobs SET state = 'FAILED', finished_at = now() "
      "WHERE id BETWEEN 100 AND 110");
  db_.Exec("VACUUM ANALYZE awc.jobs");
  auto r = conn_->Exec(std::string("EXPLAIN (FORMAT JSON) ") +
                       queue::sql::kQueueDepth);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string plan = r->GetString(0, 0);
  auto uses = [&plan](const char* index) {
    return plan.find(std::string("\"Index Name\": \"") + index + "\"") !=
           std::string::npos;
  };
  // PENDING jobs come from either index that holds them alone, as the
  // planner's estimates choose: both group by kind.
  EXPECT_TRUE(uses("jobs_pending_ready_idx") || uses("jobs_pending_kind_idx"))
      << plan;
  for (const char* index : {"jobs_lease_idx", "jobs_dead_letter_idx"}) {
    EXPECT_TRUE(uses(index)) << index << "\n" << plan;
  }
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
}

}  // namespace
}  // namespace awc::testing
