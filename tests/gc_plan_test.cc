// The GC plan's shape on a tenant whose closure does not fit in work_mem:
// the liveness test must be anti-joins, not a subquery run per object
// (which made the plan superlinear; see bench/README.md). Plan shapes, not
// timings.
#include <gtest/gtest.h>

#include "gc/gc_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

TEST(GcPlanTest, LivenessIsAntiJoinsEvenWhenTheClosureOutgrowsWorkMem) {
  TestDatabase db;
  db.Migrate();
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('t1')");
  db.Exec("INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
          "last_seen_at) SELECT 't1', 'sha256:' || encode(sha256(i::text::bytea), "
          "'hex'), 10, now() - interval '2 days', now() - interval '2 days' "
          "FROM generate_series(1, 20000) i");
  db.Exec("INSERT INTO awc.snapshots (tenant_id, root_digest, state) SELECT "
          "'t1', 'sha256:' || encode(sha256(i::text::bytea), 'hex'), 'READY' "
          "FROM generate_series(1, 4) i");
  db.Exec("INSERT INTO awc.snapshot_objects (snapshot_id, digest) SELECT "
          "(i % 4) + (SELECT min(id) FROM awc.snapshots), 'sha256:' || "
          "encode(sha256(i::text::bytea), 'hex') FROM generate_series(1, "
          "16000) i");
  db.Exec("ANALYZE");
  auto conn = db.Connect();
  ASSERT_TRUE(conn->Exec("SET work_mem = '64kB'").ok());
  ASSERT_TRUE(conn->Exec("BEGIN").ok());
  int64_t epoch = 0;
  {
    auto r = conn->Exec(
        "INSERT INTO awc.gc_epochs (tenant_id, grace_secs, batch_size, "
        "canary_size) VALUES ('t1', 3600, 1000, 10) RETURNING id");
    ASSERT_TRUE(r.ok()) << r.status().message();
    epoch = r->GetInt(0, 0);
  }
  auto plan = conn->Exec(std::string("EXPLAIN (FORMAT JSON) ") +
                             gc::sql::kPlan,
                         {"t1", "3600", std::to_string(epoch), "1000"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::string text = plan->GetString(0, 0);
  EXPECT_NE(text.find("\"Join Type\": \"Anti\""), std::string::npos) << text;
  // No correlated subquery filters the tenant's objects.
  EXPECT_EQ(text.find("\"Subplan Name\": \"SubPlan"), std::string::npos)
      << text;
  (void)conn->Exec("ROLLBACK");
}

}  // namespace
}  // namespace awc::testing
