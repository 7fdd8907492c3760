// The plans of the console's job statements on a table of mostly finished
// jobs, as a fleet's is between prunes: each state is read through its own
// partial index, none by scanning the table. Plan shapes, not timings.
#include <gtest/gtest.h>

#include "console/console_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class ConsolePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.Migrate();
    // 200000 COMPLETED jobs of a common kind, 20 of a rare one; 300
    // PENDING, 2 RUNNING, 11 FAILED and 5 CANCELLED.
    db_.Exec(
        "INSERT INTO awc.jobs (kind, payload, state, finished_at) SELECT "
        "CASE WHEN g % 10000 = 0 THEN 'rare' ELSE 'common' END, '{}', "
        "'COMPLETED', now() FROM generate_series(1, 200000) g");
    db_.Exec(
        "INSERT INTO awc.jobs (kind, payload) SELECT 'common', '{}' FROM "
        "generate_series(1, 300)");
    db_.Exec(
        "UPDATE awc.jobs SET state = 'RUNNING', lease_token = id, "
        "locked_until = now() + interval '5 minutes' WHERE id IN (5, 6)");
    db_.Exec(
        "UPDATE awc.jobs SET state = 'FAILED', dead_reason = "
        "'handler_failed' WHERE id BETWEEN 100 AND 110");
    db_.Exec(
        "UPDATE awc.jobs SET state = 'CANCELLED' WHERE id BETWEEN 200 AND 204");
    db_.Exec("VACUUM ANALYZE awc.jobs");
    conn_ = db_.Connect();
  }

  // The plan of `sql` with `params` ($1, $2, ...), as JSON text.
  std::string Plan(const std::string& sql,
                   const std::vector<std::string>& params) {
    auto r = conn_->Exec("EXPLAIN (FORMAT JSON) " + sql,
                         db::Params(params.begin(), params.end()));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetString(0, 0) : "";
  }

  // How many scans of the plan read the primary key: a job page reads it
  // once, for the rows of the ids it picked, and never to walk the history.
  static int PrimaryKeyScans(const std::string& plan) {
    int n = 0;
    for (size_t at = plan.find("\"jobs_pkey\""); at != std::string::npos;
         at = plan.find("\"jobs_pkey\"", at + 1)) {
      ++n;
    }
    return n;
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_F(ConsolePlanTest, TheOverviewReadsEachStateThroughItsIndex) {
  std::string plan = Plan(console::sql::kKindCounts, {"1000"});
  // Dead letters: any of their own indexes (see below).
  for (const char* index :
       {"jobs_pending_ready_idx", "jobs_lease_idx", "jobs_finished_kind_idx"}) {
    EXPECT_TRUE(PlanUsesIndex(plan, index)) << index << "\n" << plan;
  }
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_EQ(PrimaryKeyScans(plan), 0) << plan;
}

TEST_F(ConsolePlanTest, JobPagesReadEachStateThroughItsIndex) {
  const std::string top = "9223372036854775807";
  // ($1 state, $2 kind, $3 reason, $4 cursor, $5 limit), the index the
  // state's ids must come from (all of them when unfiltered). Dead letters
  // are few and have indexes of their own by kind, by reason and by id;
  // the planner picks among them, so for them the test holds only that no
  // scan of the table or walk of the primary key reads them.
  struct Case {
    std::vector<std::string> params;
    std::vector<const char*> indexes;
  };
  for (const Case& c : std::vector<Case>{
           {{"", "", "", top, "50"},
            {"jobs_pending_kind_idx", "jobs_lease_idx",
             "jobs_finished_kind_idx"}},
           {{"COMPLETED", "rare", "", top, "50"}, {"jobs_finished_kind_idx"}},
           {{"CANCELLED", "", "", "100000", "50"}, {"jobs_finished_kind_idx"}},
           {{"PENDING", "common", "", top, "50"}, {"jobs_pending_kind_idx"}},
           {{"RUNNING", "", "", top, "50"}, {"jobs_lease_idx"}},
           {{"FAILED", "", "handler_failed", top, "50"}, {}},
           {{"FAILED", "rare", "", top, "50"}, {}}}) {
    for (const char* sql :
         {console::sql::kJobsOlder, console::sql::kJobsNewer}) {
      std::vector<std::string> params = c.params;
      if (sql == console::sql::kJobsNewer) params[3] = "0";
      std::string plan = Plan(sql, params);
      for (const char* index : c.indexes) {
        EXPECT_TRUE(PlanUsesIndex(plan, index))
            << index << " " << ::testing::PrintToString(params) << "\n"
            << plan;
      }
      EXPECT_EQ(plan.find("Seq Scan"), std::string::npos)
          << ::testing::PrintToString(params) << "\n"
          << plan;
      EXPECT_LE(PrimaryKeyScans(plan), 1)
          << ::testing::PrintToString(params) << "\n"
          << plan;
    }
  }
}

TEST_F(ConsolePlanTest, ABacklogLeavesADeepPageToTheIndexes) {
  // 100000 PENDING jobs queued after the history: a page of older jobs
  // finds none of them below its cursor. Walking the primary key down from
  // the cursor and skipping the finished jobs would read the history.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload) SELECT CASE WHEN g % 2 = 0 "
      "THEN 'common' ELSE 'rare' END, '{}' FROM generate_series(1, 100000) g");
  db_.Exec("VACUUM ANALYZE awc.jobs");
  for (const std::vector<std::string>& params :
       std::vector<std::vector<std::string>>{
           {"", "", "", "100000", "50"},
           {"PENDING", "", "", "100000", "50"},
           {"", "rare", "", "100000", "50"}}) {
    std::string plan = Plan(console::sql::kJobsOlder, params);
    EXPECT_TRUE(PlanUsesIndex(plan, "jobs_pending_kind_idx"))
        << ::testing::PrintToString(params) << "\n"
        << plan;
    EXPECT_LE(PrimaryKeyScans(plan), 1)
        << ::testing::PrintToString(params) << "\n"
        << plan;
    EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  }
}

}  // namespace
}  // namespace awc::testing
