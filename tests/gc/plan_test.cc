// The GC plan's shape on a tenant whose closure does not fit in work_mem:
// the liveness test must be anti-joins, not a subquery run per object
// (which made the plan superlinear; see bench/README.md). Plan shapes, not
// timings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gc/gc_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// A tenant of 20,000 objects, all past a grace of an hour, 16,000 of them
// in the closures of four READY snapshots, analyzed. Returns the JSON plan
// of kEligible, planned after the SET of each of `settings`.
std::string PlanOfATenantPastItsGrace(
    TestDatabase& db, const std::vector<std::string>& settings) {
  db.Migrate();
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('t1')");
  db.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
      "last_seen_at) SELECT 't1', 'sha256:' || encode(sha256(i::text::bytea), "
      "'hex'), 10, now() - interval '2 days', now() - interval '2 days' "
      "FROM generate_series(1, 20000) i");
  db.Exec(
      "INSERT INTO awc.snapshots (tenant_id, root_digest, state) SELECT "
      "'t1', 'sha256:' || encode(sha256(i::text::bytea), 'hex'), 'READY' "
      "FROM generate_series(1, 4) i");
  db.Exec(
      "INSERT INTO awc.snapshot_objects (snapshot_id, digest) SELECT "
      "(i % 4) + (SELECT min(id) FROM awc.snapshots), 'sha256:' || "
      "encode(sha256(i::text::bytea), 'hex') FROM generate_series(1, "
      "16000) i");
  db.Exec("ANALYZE");
  auto conn = db.Connect();
  for (const std::string& setting : settings) {
    EXPECT_TRUE(conn->Exec("SET " + setting).ok()) << setting;
  }
  auto plan =
      conn->Exec(std::string("EXPLAIN (FORMAT JSON) ") + gc::sql::kEligible,
                 {"t1", "3600"});
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? plan->GetString(0, 0) : "";
}

TEST(GcPlanTest, LivenessIsAntiJoinsEvenWhenTheClosureOutgrowsWorkMem) {
  TestDatabase db;
  std::string text = PlanOfATenantPastItsGrace(db, {"work_mem = '64kB'"});
  EXPECT_NE(text.find("\"Join Type\": \"Anti\""), std::string::npos) << text;
  // No correlated subquery filters the tenant's objects.
  EXPECT_EQ(text.find("\"Subplan Name\": \"SubPlan"), std::string::npos)
      << text;
}

// The planner knows how many objects are past the grace (the statistics of
// migration 0007), so that it reads a tenant that is mostly old with one
// sequential scan instead of walking objects_gc_idx into random reads of
// the table. Without them it guesses a third (6,667 here).
TEST(GcPlanTest, ThePlannerKnowsHowManyObjectsArePastTheGrace) {
  TestDatabase db;
  std::string text = PlanOfATenantPastItsGrace(db, {"work_mem = '4MB'"});
  size_t scan = text.find("\"Relation Name\": \"objects\"");
  ASSERT_NE(scan, std::string::npos) << text;
  const std::string key = "\"Plan Rows\": ";
  size_t rows = text.find(key, scan);
  ASSERT_NE(rows, std::string::npos) << text;
  double estimate = std::stod(text.substr(rows + key.size()));
  EXPECT_GT(estimate, 0.8 * 20000) << text;
  EXPECT_LT(estimate, 1.2 * 20000) << text;
}

// The plan's statement only reads, so PostgreSQL may run it with parallel
// workers (docs/gc.md, "GC at scale"): with parallelism made
// free, its plan gathers from workers. A statement that writes, as the
// plan once did, never gets a Gather.
TEST(GcPlanTest, TheEligibleObjectsMayBeReadInParallel) {
  TestDatabase db;
  std::string text = PlanOfATenantPastItsGrace(
      db, {"parallel_setup_cost = 0", "parallel_tuple_cost = 0",
           "min_parallel_table_scan_size = 0",
           "max_parallel_workers_per_gather = 2"});
  EXPECT_NE(text.find("\"Node Type\": \"Gather"), std::string::npos) << text;
}

}  // namespace
}  // namespace awc::testing
