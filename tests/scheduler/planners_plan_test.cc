// The plans of the scheduler's planners and prune batches on a realistic
// table state: many READY snapshots in many workspaces, a long job history,
// a few subjects due. Each must reach what is due through its index — none
// scans the snapshots, the jobs or the workspaces (bench/README.md,
// "Scheduler", has the timings at a million rows). Plan shapes, not
// timings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json.h"
#include "scheduler/planners.h"
#include "scheduler/scheduler_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class SchedulerPlanTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new TestDatabase();
    db_->Migrate();
    TestDatabase& db = *db_;
    db.Exec(
        "INSERT INTO awc.tenants (id) SELECT 't' || i FROM "
        "generate_series(1, 20) i");
    // 400 workspaces, a quarter with a policy; a few due to expire.
    db.Exec(
        "INSERT INTO awc.workspaces (tenant_id, retention, expires_at) "
        "SELECT 't' || (i % 20 + 1), CASE WHEN i % 4 = 0 THEN "
        "'{\"keep_last\": 3}'::jsonb END, CASE WHEN i % 100 = 0 THEN "
        "now() - interval '1 hour' ELSE now() + interval '30 days' END "
        "FROM generate_series(1, 400) i");
    db.Exec(
        "UPDATE awc.workspaces SET state = 'EXPIRING', expiring_since = "
        "now() WHERE id % 97 = 0");
    // 40000 snapshots, 100 per workspace, READY, validated and scrubbed
    // recently except a few; a few VALIDATING.
    db.Exec(
        "INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest, "
        "state, created_at, validated_at, scrubbed_at) SELECT 't' || "
        "(i % 20 + 1), i % 400 + 1, 'sha256:' || lpad(to_hex(i), 64, '0'), "
        "CASE WHEN i % 5000 = 0 THEN 'VALIDATING' WHEN i % 7 = 0 THEN "
        "'RELEASED' ELSE 'READY' END, now() - make_interval(secs => i), "
        "now() - make_interval(secs => i), CASE WHEN i % 1000 = 0 THEN "
        "now() - interval '40 days' ELSE now() - interval '1 day' END "
        "FROM generate_series(1, 40000) i");
    db.Exec(
        "INSERT INTO awc.objects (tenant_id, digest, size) SELECT 't' || "
        "(i % 20 + 1), 'sha256:' || lpad(to_hex(i), 64, '0'), 1 FROM "
        "generate_series(1, 20000) i");
    // 40000 jobs: a week of history as an hourly prune leaves it (the
    // oldest hour is past the retention), mostly completed; some failed,
    // some pending.
    db.Exec(
        "INSERT INTO awc.jobs (kind, payload, state, finished_at) SELECT "
        "CASE WHEN i % 3 = 0 THEN 'snapshot_validate' ELSE 'gc_sweep' END, "
        "jsonb_build_object('snapshot_id', i), CASE WHEN i % 50 = 0 THEN "
        "'FAILED' WHEN i % 40 = 0 THEN 'PENDING' ELSE 'COMPLETED' END, "
        "now() - make_interval(secs => i * 15.2) FROM "
        "generate_series(1, 40000) i");
    db.Exec("UPDATE awc.jobs SET finished_at = NULL WHERE state = 'PENDING'");
    db.Exec(
        "INSERT INTO awc.audit_events (event, subject, created_at) "
        "SELECT 'e', 's', now() - make_interval(secs => i * 1600) FROM "
        "generate_series(1, 20000) i");
    // 2000 finished GC epochs, an hour apart; the candidates of the last
    // week's are left, and those of one just past the retention.
    db.Exec(
        "INSERT INTO awc.gc_epochs (tenant_id, state, grace_secs, "
        "batch_size, canary_size, finished_at) SELECT 't' || (i % 20 + 1), "
        "'COMPLETED', 1, 1, 1, now() - make_interval(secs => (2000 - i) * "
        "3600) FROM generate_series(1, 2000) i");
    db.Exec(
        "INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, "
        "size, seq) SELECT 1830 + i % 170, 't1', 'sha256:' || "
        "lpad(to_hex(i), 64, '0'), 1, i FROM generate_series(1, 20000) i");
    db.Exec("VACUUM ANALYZE");
  }
  static void TearDownTestSuite() {
    delete db_;
    db_ = nullptr;
  }

  // The plan of `sql` with `args` (SQL literals) as the scheduler gets it:
  // the statement runs unprepared, so it is planned for its actual values.
  std::string Plan(const std::string& sql, const std::string& args) {
    auto conn = db_->Connect();
    EXPECT_TRUE(conn->Exec("SET plan_cache_mode = force_custom_plan").ok());
    auto prep = conn->Exec("PREPARE s AS " + sql);
    EXPECT_TRUE(prep.ok()) << prep.status().message();
    auto r = conn->Exec("EXPLAIN (FORMAT JSON) EXECUTE s" +
                        (args.empty() ? "" : "(" + args + ")"));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetString(0, 0) : "";
  }

  // The plan of `sql` uses every index of `indexes` and scans none of
  // `tables` sequentially.
  void Expect(const char* what, const std::string& sql, const std::string& args,
              std::vector<std::string> indexes,
              std::vector<std::string> tables) {
    std::string text = Plan(sql, args);
    std::vector<std::string> nodes = PlanNodes(text);
    ASSERT_FALSE(nodes.empty()) << text;
    std::string all = ::testing::PrintToString(nodes);
    for (const std::string& index : indexes) {
      bool used = false;
      for (const std::string& n : nodes) {
        used = used || n.ends_with(" using " + index);
      }
      EXPECT_TRUE(used) << what << " does not use " << index << ": " << all;
    }
    for (const std::string& table : tables) {
      for (const std::string& n : nodes) {
        EXPECT_NE(n, "Seq Scan on " + table) << what << ": " << all;
      }
    }
  }

  static TestDatabase* db_;
};

TestDatabase* SchedulerPlanTest::db_ = nullptr;

// One test: the table state takes a while to build (under ASan
// especially), and every statement is checked on the same one.
TEST_F(SchedulerPlanTest, EveryStatementReachesItsRowsThroughItsIndex) {
  // gc: an index probe of each tenant's objects.
  Expect("gc", scheduler::sql::kPlanGc, "", {"objects_pkey"}, {"objects"});
  // reconcile: likewise.
  Expect("reconcile", scheduler::sql::kPlanReconcile, "", {"objects_pkey"},
         {"objects"});
  // expire: only the due workspaces.
  Expect("expire", scheduler::sql::kPlanExpire, "86400, 10000",
         {"workspaces_active_due_idx", "workspaces_expiring_idx"},
         {"workspaces"});
  // retain: workspace by workspace (the workspaces themselves may be read
  // whole: a fleet where most have a policy), never the snapshots.
  Expect("retain", scheduler::sql::kPlanRetain, "10000",
         {"snapshots_workspace_idx", "snapshots_pkey"}, {"snapshots"});
  // scrub: the oldest verified first.
  Expect("scrub", scheduler::sql::kPlanScrub, "2592000, 100",
         {"snapshots_scrub_idx"}, {"snapshots"});
  // validate: a probe of the live validation jobs per snapshot.
  Expect("validate", scheduler::sql::kPlanValidate, "60, 10000",
         {"snapshots_validating_idx", "jobs_validate_live_idx"},
         {"snapshots", "jobs"});
  // prune: each batch through its index, deleted by key.
  Expect("prune jobs", scheduler::sql::kPruneJobs, "604800, 1000",
         {"jobs_finished_idx", "jobs_pkey"}, {"jobs"});
  Expect("prune dead letters", scheduler::sql::kPruneDeadLetters,
         "2592000, 1000", {"jobs_finished_idx"}, {"jobs"});
  Expect("prune audit", scheduler::sql::kPruneAudit, "31536000, 1000",
         {"audit_events_created_idx"}, {"audit_events"});
  Expect("prune gc candidates", scheduler::sql::kPruneGcCandidates,
         "604800, 1000", {"gc_epochs_pkey"}, {"gc_candidates", "gc_epochs"});
}

}  // namespace
}  // namespace awc::testing
