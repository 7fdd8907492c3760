// The plans of the queue's hot statements, checked on a realistic table
// state: statistics taken while nothing ran, then a drained backlog leaving
// dead RUNNING versions behind. Plan shapes, not timings.
#include <gtest/gtest.h>

#include "queue/kind_settings_sql.h"
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
    EXPECT_TRUE(PlanUsesIndex(plan, "jobs_pkey")) << plan;
  }
  std::string renew = Plan(queue::sql::kRenewLease, "15000, 15000, 300");
  EXPECT_TRUE(PlanUsesIndex(renew, "jobs_pkey")) << renew;
  // The read a running handler's checkpoints make once a second.
  std::string held = Plan(queue::sql::kJobHeld, "15000, 15000");
  EXPECT_TRUE(PlanUsesIndex(held, "jobs_pkey")) << held;
}

TEST_F(QueuePlanTest, ClaimAndReclaimUseTheirPartialIndexes) {
  std::string claim = Plan(queue::sql::kClaim, "'w-1', 300, '{}', '{}', '{}'");
  EXPECT_TRUE(PlanUsesIndex(claim, "jobs_priority_claim_idx")) << claim;
  // While a kind is paused, the oldest job of each other kind
  // (docs/queue.md, "Pausing a kind").
  EXPECT_TRUE(PlanUsesIndex(claim, "jobs_pending_priority_kind_idx"))
      << claim;
  // The indexes older builds claim from are not what this one walks.
  EXPECT_FALSE(PlanUsesIndex(claim, "jobs_claim_idx")) << claim;
  EXPECT_FALSE(PlanUsesIndex(claim, "jobs_pending_kind_run_idx")) << claim;
  EXPECT_FALSE(PlanUsesIndex(claim, "jobs_pending_kind_idx")) << claim;
  // Both halves, expired leases and silent holders, are ranges of the
  // RUNNING jobs' index, not scans of the table.
  db_.Exec(
      "INSERT INTO awc.workers (host, pid, worker_id, slot, started_at, "
      "heartbeat_at, state) SELECT 'h', n, 'w-' || n, n, now(), now(), "
      "'busy' FROM generate_series(1, 50) n");
  db_.Exec("ANALYZE awc.workers");
  std::string reclaim = Plan(queue::sql::kReclaim, "100, 30, 1e10");
  EXPECT_TRUE(PlanUsesIndex(reclaim, "jobs_lease_idx")) << reclaim;
  for (const std::string& node : PlanNodes(reclaim)) {
    EXPECT_NE(node, "Seq Scan on jobs") << reclaim;
  }
}

// The statements that keep concurrency limits run before every claim
// while a limit is set: they count a kind's RUNNING jobs and probe its
// ready ones through indexes, never by reading the table.
TEST_F(QueuePlanTest, TheLimitStatementsReadIndexesOnly) {
  // A table of mostly finished jobs, as a fleet's is between prunes.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'COMPLETED', finished_at = now() "
      "WHERE id % 100 <> 0");
  db_.Exec(
      "INSERT INTO awc.kind_settings (kind, host_limit, fleet_limit) VALUES "
      "('k', 1, 2)");
  db_.Exec("ANALYZE awc.jobs");
  db_.Exec("ANALYZE awc.kind_settings");
  for (const char* sql : {queue::sql::kLimitsLock, queue::sql::kLimitsOut}) {
    std::string plan = Plan(sql, sql == queue::sql::kLimitsLock
                                     ? "'w-1', '{}'"
                                     : "'w-1'");
    for (const std::string& node : PlanNodes(plan)) {
      EXPECT_NE(node, "Seq Scan on jobs") << plan;
    }
  }
}

// The claim's cursor column (awc.jobs_ready_micros) is an expression of
// the plan, not a call of an SQL function, which would be parsed and
// planned again in every claim (migration 0020).
TEST_F(QueuePlanTest, TheClaimInlinesItsCursorColumn) {
  Plan(queue::sql::kClaim, "'w-1', 300, '{}', '{}', '{}'");
  auto r = conn_->Exec(
      "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE s('w-1', 300, '{}', '{}', '{}')");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string plan = r->GetString(0, 0);
  EXPECT_EQ(plan.find("jobs_ready_micros"), std::string::npos) << plan;
  EXPECT_NE(plan.find("isfinite"), std::string::npos) << plan;
}

// Shared buffers the generic plan of `sql` touches when run with `args`
// (rolled back), from its top node.
int64_t BuffersOf(db::PgConn& conn, const std::string& sql,
                  const std::string& args) {
  EXPECT_TRUE(conn.Exec("DEALLOCATE ALL").ok());
  EXPECT_TRUE(conn.Exec("PREPARE s AS " + sql).ok());
  EXPECT_TRUE(conn.Begin().ok());
  auto r = conn.Exec("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE s(" +
                     args + ")");
  conn.Rollback();
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return -1;
  auto hits = conn.Exec(
      "SELECT ($1::json -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::int + "
      "($1::json -> 0 -> 'Plan' ->> 'Shared Read Blocks')::int",
      {r->GetString(0, 0)});
  EXPECT_TRUE(hits.ok()) << hits.status().message();
  return hits.ok() ? hits->GetInt(0, 0) : -1;
}

// While a long transaction pins the horizon, every job claimed since
// leaves a dead entry at the start of jobs_priority_claim_idx that nothing may
// remove (docs/queue.md, "The claim cursor"). A claim from the cursor
// starts after them; one from the index's start visits each.
TEST_F(QueuePlanTest, UnderAPinnedHorizonACursorClaimSkipsTheDeadEntries) {
  auto pin = db_.HoldHorizon("pin");
  // 4,899 jobs claimed and completed since the pin: the first 2,000 with
  // leases that would still run, the others with leases that would have
  // ended ten minutes ago.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'RUNNING', lease_token = id, "
      "locked_until = now() + CASE WHEN id <= 17000 THEN interval "
      "'5 minutes' ELSE interval '-10 minutes' END "
      "WHERE state = 'PENDING' AND id < 19900");
  db_.Exec(
      "UPDATE awc.jobs SET state = 'COMPLETED', locked_until = NULL "
      "WHERE state = 'RUNNING' AND id > 15000 AND id < 19900");
  std::string micros = db_.Scalar(
      "SELECT awc.jobs_ready_micros(run_at) FROM awc.jobs WHERE id = 19899");
  // Pages, not entries: a dead entry's heap tuple often shares its page
  // with the previous one's.
  // Every job here has one priority; the cursor's position of each is
  // just after job 19899.
  int64_t from_cursor = BuffersOf(
      *conn_, queue::sql::kClaim,
      "'w-1', 300, array_fill(" + micros +
          "::bigint, ARRAY[10]), array_fill(19900::bigint, ARRAY[10]), '{}'");
  int64_t from_start =
      BuffersOf(*conn_, queue::sql::kClaim, "'w-1', 300, '{}', '{}', '{}'");
  // Each priority more urgent than the jobs' (4) costs a descent of the
  // index, a few pages, whatever the pin left.
  EXPECT_LT(from_cursor, 60);
  // The pin works: from the start, the claim visits every dead entry.
  EXPECT_GT(from_start, 8 * from_cursor) << from_cursor;
  // The lease sweep: no worker is silent, so the leases that would still
  // run are not walked; the ended ones lie before a sweep a few seconds
  // ago, so only a full sweep walks them.
  int64_t sweep = BuffersOf(*conn_, queue::sql::kReclaim, "100, 30, 3");
  int64_t full_sweep = BuffersOf(*conn_, queue::sql::kReclaim, "100, 30, 1e10");
  EXPECT_LT(sweep, 20);
  EXPECT_GT(full_sweep, 3 * sweep) << sweep;
  pin->Rollback();
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
                       queue::sql::kDepthSample);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string plan = r->GetString(0, 0);
  // PENDING jobs come from either index that holds them alone, as the
  // planner's estimates choose: both group by kind.
  EXPECT_TRUE(PlanUsesIndex(plan, "jobs_pending_ready_idx") ||
              PlanUsesIndex(plan, "jobs_pending_kind_idx"))
      << plan;
  for (const char* index : {"jobs_lease_idx", "jobs_dead_letter_idx"}) {
    EXPECT_TRUE(PlanUsesIndex(plan, index)) << index << "\n" << plan;
  }
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
}

// Each claim and outcome moves a job to a new row version, which enters
// every index of awc.jobs whose predicate it meets (docs/console.md,
// "Console"): the indexes a job's row meets at each step of its life,
// with the predicates read from the catalog of the migrated schema.
TEST_F(QueuePlanTest, EachStepOfAJobEntersOnlyTheIndexesOfItsState) {
  auto indexes_of = [this](const std::string& id) {
    auto idx = conn_->Exec(
        "SELECT c.relname, coalesce(pg_get_expr(i.indpred, i.indrelid), "
        "'true') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = 'awc.jobs'::regclass ORDER BY c.relname");
    EXPECT_TRUE(idx.ok()) << idx.status().message();
    std::string met;
    for (int i = 0; idx.ok() && i < idx->rows(); ++i) {
      std::string sql = "SELECT count(*) FROM awc.jobs WHERE id = $1 AND (" +
                        idx->GetString(i, 1) + ")";
      if (db_.Scalar(sql, {id}) == "1") {
        met += (met.empty() ? "" : " ") + idx->GetString(i, 0);
      }
    }
    return met;
  };
  // The oldest ready job, so that the claim below takes it.
  std::string id = db_.Scalar(
      "INSERT INTO awc.jobs (kind, payload, run_at) VALUES ('k', '{}', "
      "now() - interval '1 day') RETURNING id");
  EXPECT_EQ(indexes_of(id),
            "jobs_claim_idx jobs_pending_kind_idx jobs_pending_kind_run_idx "
            "jobs_pending_priority_kind_idx jobs_pending_ready_idx "
            "jobs_pkey jobs_priority_claim_idx");
  auto claimed =
      conn_->Exec(queue::sql::kClaim, {"w-1", "300", "{}", "{}", "{}"});
  ASSERT_TRUE(claimed.ok()) << claimed.status().message();
  ASSERT_EQ(claimed->GetString(0, 0), id);
  EXPECT_EQ(indexes_of(id), "jobs_lease_idx jobs_pkey");
  auto done = conn_->Exec(queue::sql::Fenced(queue::sql::kComplete),
                          {id, claimed->GetString(0, 5), "{}"});
  ASSERT_TRUE(done.ok()) << done.status().message();
  ASSERT_EQ(done->GetString(0, 0), "t");
  EXPECT_EQ(indexes_of(id),
            "jobs_finished_idx jobs_finished_kind_idx jobs_pkey");
}

}  // namespace
}  // namespace awc::testing
