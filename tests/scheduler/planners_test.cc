// The built-in planners against a real database: each enqueues exactly one
// job per due subject and none for the others — the subjects its handler
// would act on, checked by running the handler on every subject — and the
// dedupe index holds when two planners race.
#include "scheduler/planners.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "handlers/snapshot_retain.h"
#include "handlers/workspace_expire.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

using Ids = std::set<int64_t>;

class PlannersTest : public ::testing::Test {
 protected:
  PlannersTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    conn_ = db_.Connect();
    options_.retention_grace_secs = 3600;
    handlers::HandlerOptions h;
    h.retention_grace_secs = options_.retention_grace_secs;
    ctx_ = std::make_unique<TestContext>(db_, *store_, h);
    root_ = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  }

  scheduler::PlanResult Plan(const std::string& name) {
    Result<scheduler::PlanResult> r =
        scheduler::RunPlanner(*conn_, name, options_);
    EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    return r.ok() ? *r : scheduler::PlanResult{-1, -1, std::nullopt};
  }
  // The subjects of the jobs of `kind` (payload key `key`) and their
  // dedupe keys' ids, checked to agree.
  Ids Subjects(const std::string& kind, const std::string& key) {
    Ids ids;
    auto r = conn_->Exec(
        "SELECT (payload ->> $2)::bigint, dedupe_key FROM awc.jobs WHERE "
        "kind = $1 ORDER BY id",
        {kind, key});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    for (int i = 0; r.ok() && i < r->rows(); ++i) {
      int64_t id = r->GetInt(i, 0);
      EXPECT_TRUE(ids.insert(id).second) << kind << " twice for " << id;
      std::string prefix = key == "workspace_id" ? "workspace:" : "snapshot:";
      EXPECT_EQ(r->GetString(i, 1), prefix + std::to_string(id));
    }
    return ids;
  }
  void Set(const char* table, int64_t id, const std::string& assignments) {
    db_.Exec(std::string("UPDATE awc.") + table + " SET " + assignments +
                 " WHERE id = $1",
             {std::to_string(id)});
  }
  int64_t Snap(int64_t ws, const std::string& state, int64_t age_secs,
               bool pinned = false) {
    int64_t id = cas_.Snapshot(root_, state, ws);
    Set("snapshots", id,
        "created_at = now() - make_interval(secs => " +
            std::to_string(age_secs) +
            "), pinned = " + (pinned ? "true" : "false"));
    return id;
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<db::PgConn> conn_;
  scheduler::SchedulerOptions options_;
  std::unique_ptr<TestContext> ctx_;
  std::string root_;
};

TEST_F(PlannersTest, GcSweepsEveryTenantWithObjectsOnce) {
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('t2'), ('t3')");
  db_.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size) VALUES ('t3', "
      "'sha256:' || repeat('a', 64), 1)");
  scheduler::PlanResult r = Plan("gc");
  EXPECT_EQ(r.due, 2);
  EXPECT_EQ(r.enqueued, 2);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(payload ->> 'tenant_id' || '=' || "
                       "dedupe_key, ',' ORDER BY id) FROM awc.jobs WHERE "
                       "kind = 'gc_sweep'"),
            "t1=tenant:t1,t3=tenant:t3");
  // Their jobs are still pending: nothing piles up.
  r = Plan("gc");
  EXPECT_EQ(r.due, 2);
  EXPECT_EQ(r.enqueued, 0);
  // A finished sweep makes room for the next one.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'COMPLETED' WHERE dedupe_key = "
      "'tenant:t1'");
  EXPECT_EQ(Plan("gc").enqueued, 1);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs WHERE kind = 'gc_sweep'"),
            3);
}

TEST_F(PlannersTest, ReconcileListsEveryTenantWithObjectsOnce) {
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('t2'), ('t3')");
  db_.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size) VALUES ('t3', "
      "'sha256:' || repeat('a', 64), 1)");
  scheduler::PlanResult r = Plan("reconcile");
  EXPECT_EQ(r.due, 2);
  EXPECT_EQ(r.enqueued, 2);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(payload ->> 'tenant_id' || '=' || "
                       "dedupe_key, ',' ORDER BY id) FROM awc.jobs WHERE "
                       "kind = 'store_reconcile'"),
            "t1=tenant:t1,t3=tenant:t3");
  // A tenant's GC sweep and reconciliation do not dedupe each other.
  EXPECT_EQ(Plan("gc").enqueued, 2);
  EXPECT_EQ(Plan("reconcile").enqueued, 0);
}

TEST_F(PlannersTest, ExpireEnqueuesExactlyTheWorkspacesWhoseStepIsDue) {
  int64_t due = cas_.Workspace();
  Set("workspaces", due, "expires_at = now() - interval '1 second'");
  int64_t future = cas_.Workspace();
  Set("workspaces", future, "expires_at = now() + interval '1 hour'");
  int64_t never = cas_.Workspace();
  int64_t grace_over = cas_.Workspace("", "EXPIRING");
  Set("workspaces", grace_over,
      "expires_at = now() - interval '3 hours', expiring_since = now() - "
      "interval '2 hours'");
  int64_t in_grace = cas_.Workspace("", "EXPIRING");
  Set("workspaces", in_grace,
      "expires_at = now() - interval '1 hour', expiring_since = now() - "
      "interval '10 minutes'");
  int64_t renewed = cas_.Workspace("", "EXPIRING");
  Set("workspaces", renewed,
      "expires_at = NULL, expiring_since = now() - interval '10 minutes'");
  int64_t expired = cas_.Workspace("", "EXPIRED");

  scheduler::PlanResult r = Plan("expire");
  EXPECT_EQ(r.due, 3);
  EXPECT_EQ(r.enqueued, 3);
  Ids planned = Subjects("workspace_expire", "workspace_id");
  EXPECT_EQ(planned, (Ids{due, grace_over, renewed}));
  // The handler agrees: exactly the planned workspaces take a step.
  for (int64_t ws :
       {due, future, never, grace_over, in_grace, renewed, expired}) {
    queue::Outcome o =
        handlers::ExpireWorkspace(*ctx_, handlers::WorkspacePayload{ws});
    EXPECT_EQ(ResultField(o, "verdict") == "transitioned",
              planned.count(ws) == 1)
        << "workspace " << ws << ": " << o.result;
  }
  // Nothing is due any more.
  EXPECT_EQ(Plan("expire").due, 0);
}

TEST_F(PlannersTest, RetainEnqueuesExactlyTheSnapshotsItsHandlerReleases) {
  Ids expected;
  // keep_last 1: the newest is kept, the older released, pinned kept.
  int64_t w1 = cas_.Workspace(R"({"keep_last": 1})");
  int64_t pinned_old = Snap(w1, "READY", 7200, true);
  expected.insert(Snap(w1, "READY", 3600));
  Snap(w1, "READY", 60);
  Snap(w1, "DEGRADED", 9000);
  // keep_within_secs: the old one goes.
  int64_t w2 = cas_.Workspace(R"({"keep_within_secs": 1800})");
  expected.insert(Snap(w2, "READY", 3600));
  Snap(w2, "READY", 600);
  // Both rules: released only past both.
  int64_t w3 = cas_.Workspace(R"({"keep_last": 2, "keep_within_secs": 1800})");
  Snap(w3, "READY", 60);
  Snap(w3, "READY", 3000);
  expected.insert(Snap(w3, "READY", 4000));
  // An EXPIRED workspace's READY snapshots go, pinned or not.
  int64_t w5 = cas_.Workspace(R"({"keep_last": 5})", "EXPIRED");
  expected.insert(Snap(w5, "READY", 10, true));
  int64_t w6 = cas_.Workspace("", "EXPIRED");
  expected.insert(Snap(w6, "READY", 10));
  // No policy, a JSON null, malformed policies, and policies that would
  // keep nothing (no rule, a rule of 0): everything is kept.
  for (const char* policy :
       {"", "null", "{}", R"({"keep_last": 0})", R"({"keep_within_secs": 0})",
        R"({"keep_last": 0, "keep_within_secs": 0})", R"({"keep_last": "x"})",
        R"({"keep_last": 1, "x": 2})", R"({"keep_last": -1})",
        R"({"keep_last": 1.5})", "[1]", "7"}) {
    int64_t w = cas_.Workspace(policy);
    Snap(w, "READY", 7200);
    Snap(w, "READY", 3600);
  }
  // No workspace.
  Snap(0, "READY", 7200);

  scheduler::PlanResult r = Plan("retain");
  Ids planned = Subjects("snapshot_retain", "snapshot_id");
  EXPECT_EQ(planned, expected);
  EXPECT_EQ(r.due, static_cast<int64_t>(expected.size()));
  EXPECT_EQ(r.enqueued, static_cast<int64_t>(expected.size()));
  EXPECT_EQ(planned.count(pinned_old), 0u);
  // The handler agrees on every READY or DEGRADED snapshot.
  auto all = conn_->Exec(
      "SELECT id FROM awc.snapshots WHERE state IN ('READY', 'DEGRADED') "
      "ORDER BY id");
  ASSERT_TRUE(all.ok());
  for (int i = 0; i < all->rows(); ++i) {
    int64_t id = all->GetInt(i, 0);
    queue::Outcome o =
        handlers::RetainSnapshot(*ctx_, handlers::SnapshotPayload{id});
    EXPECT_EQ(ResultField(o, "verdict") == "released", planned.count(id) == 1)
        << "snapshot " << id << ": " << o.result;
  }
  EXPECT_EQ(Plan("retain").due, 0);
}

TEST_F(PlannersTest, ScrubTakesTheLongestUnverifiedFirstUpToItsLimit) {
  options_.scrub_interval_secs = 86400;
  options_.scrub_max_per_run = 2;
  auto ready = [&](const std::string& validated, const std::string& scrubbed) {
    int64_t id = Snap(0, "READY", 10 * 86400);
    Set("snapshots", id,
        "validated_at = now() - interval '" + validated + "', scrubbed_at = " +
            (scrubbed.empty() ? "NULL"
                              : "now() - interval '" + scrubbed + "'"));
    return id;
  };
  int64_t three_days = ready("3 days", "");
  int64_t scrubbed_two_days = ready("5 days", "2 days");
  ready("10 days", "1 hour");  // scrubbed recently
  int64_t four_days = ready("4 days", "");
  ready("1 hour", "");  // validated recently
  Snap(0, "DEGRADED", 10 * 86400);
  Snap(0, "VALIDATING", 10 * 86400);

  scheduler::PlanResult r = Plan("scrub");
  EXPECT_EQ(r.due, 2);
  EXPECT_EQ(r.enqueued, 2);
  EXPECT_EQ(Subjects("snapshot_scrub", "snapshot_id"),
            (Ids{four_days, three_days}));
  options_.scrub_max_per_run = 100;
  r = Plan("scrub");
  EXPECT_EQ(r.due, 3);
  EXPECT_EQ(r.enqueued, 1);
  EXPECT_EQ(Subjects("snapshot_scrub", "snapshot_id"),
            (Ids{four_days, three_days, scrubbed_two_days}));
  // Each job skips what was verified within the planning horizon (the
  // promise less the scrubs' lead): one cycle reads an object that
  // snapshots share once.
  EXPECT_EQ(db_.Scalar("SELECT string_agg(DISTINCT "
                       "payload->>'reverify_after_secs', ',') FROM awc.jobs "
                       "WHERE kind = 'snapshot_scrub'"),
            std::to_string(static_cast<int64_t>(
                static_cast<double>(options_.scrub_interval_secs) *
                scheduler::kScrubPlanShare)));
}

// Each firing of the scrub planner samples the promise: how much of the
// referenced content was verified within it, the oldest wait, and the rate
// the fleet needs against the budget it has.
TEST_F(PlannersTest, TheScrubPlannerSamplesTheCoveragePromise) {
  options_.scrub_interval_secs = 86400;
  options_.scrub_budget_bytes_per_sec = 1;  // far too little
  db_.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size, refs, verified_at, "
      "created_at) VALUES "
      "('t1', 'sha256:' || repeat('1', 64), 86400, 1, now() - interval "
      "'1 hour', now() - interval '9 days'), "
      "('t1', 'sha256:' || repeat('2', 64), 86400, 2, NULL, now() - interval "
      "'2 days'), "
      "('t1', 'sha256:' || repeat('3', 64), 7, 0, NULL, now() - interval "
      "'30 days')");  // unreferenced: not part of the promise
  scheduler::PlanResult r = Plan("scrub");
  ASSERT_TRUE(r.coverage.has_value());
  const scheduler::ScrubCoverage& c = *r.coverage;
  EXPECT_EQ(c.promise_secs, 86400);
  EXPECT_GE(c.objects, 2);  // and the fixture's tree, when referenced
  EXPECT_GE(c.bytes, 2 * 86400);
  EXPECT_LT(c.verified, c.objects);
  EXPECT_NEAR(c.oldest_unverified_secs, 2 * 86400, 60);
  EXPECT_TRUE(c.broken());
  EXPECT_GE(c.required_bytes_per_sec, 2.0);
  EXPECT_FALSE(c.budget_enough());
  options_.scrub_budget_bytes_per_sec = 0;  // no budget: never too small
  EXPECT_TRUE(Plan("scrub").coverage->budget_enough());
}

TEST_F(PlannersTest, ValidateRescuesSnapshotsWithoutALiveValidationJob) {
  auto job = [&](int64_t snap, const std::string& state) {
    db_.Exec(
        "INSERT INTO awc.jobs (kind, payload, state) VALUES "
        "('snapshot_validate', jsonb_build_object('snapshot_id', $1::bigint), "
        "$2)",
        {std::to_string(snap), state});
  };
  int64_t lost = Snap(0, "VALIDATING", 120);
  int64_t pending = Snap(0, "VALIDATING", 120);
  job(pending, "PENDING");
  int64_t running = Snap(0, "VALIDATING", 120);
  job(running, "RUNNING");
  int64_t dead = Snap(0, "VALIDATING", 120);
  job(dead, "FAILED");
  Snap(0, "VALIDATING", 5);  // its producer's job may still come
  Snap(0, "READY", 120);

  scheduler::PlanResult r = Plan("validate");
  EXPECT_EQ(r.due, 2);
  EXPECT_EQ(r.enqueued, 2);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs WHERE kind = "
                    "'snapshot_validate' AND dedupe_key IS NOT NULL"),
            2);
  auto planned = conn_->Exec(
      "SELECT (payload ->> 'snapshot_id')::bigint FROM awc.jobs WHERE "
      "dedupe_key IS NOT NULL ORDER BY 1");
  ASSERT_TRUE(planned.ok());
  ASSERT_EQ(planned->rows(), 2);
  EXPECT_EQ(planned->GetInt(0, 0), lost);
  EXPECT_EQ(planned->GetInt(1, 0), dead);
  // Its own jobs are live validation jobs too.
  EXPECT_EQ(Plan("validate").due, 0);
}

TEST_F(PlannersTest, AnOperatorScheduleEnqueuesOneLiveJob) {
  for (int i = 0; i < 3; ++i) {
    Result<scheduler::PlanResult> r =
        scheduler::EnqueueScheduled(*conn_, "nightly", "test_complete", "{}");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->enqueued, i == 0 ? 1 : 0);
  }
  EXPECT_EQ(db_.Scalar("SELECT kind || ' ' || dedupe_key FROM awc.jobs"),
            "test_complete schedule:nightly");
}

TEST_F(PlannersTest, ProducersMayDedupeToo) {
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, dedupe_key) VALUES ('gc_sweep', "
      "'{\"tenant_id\": \"t1\"}', 'tenant:t1')");
  // The producer's form: ON CONFLICT DO NOTHING.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, dedupe_key) VALUES ('gc_sweep', "
      "'{\"tenant_id\": \"t1\"}', 'tenant:t1') ON CONFLICT DO NOTHING");
  EXPECT_EQ(Plan("gc").enqueued, 0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 1);
  // Without ON CONFLICT the index refuses the copy.
  auto dup = conn_->Exec(
      "INSERT INTO awc.jobs (kind, payload, dedupe_key) VALUES ('gc_sweep', "
      "'{}', 'tenant:t1')");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(conn_->last_sqlstate(), "23505");
  // Same key, another kind: no conflict; no key: never a conflict.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, dedupe_key) VALUES "
      "('snapshot_scrub', '{}', 'tenant:t1')");
  db_.Exec("INSERT INTO awc.jobs (kind, payload) VALUES ('gc_sweep', '{}')");
  db_.Exec("INSERT INTO awc.jobs (kind, payload) VALUES ('gc_sweep', '{}')");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 4);
}

// Two planners race: the second waits on the first's uncommitted jobs and
// then enqueues only what the first did not commit.
TEST_F(PlannersTest, TheDedupeIndexHoldsUnderTwoPlannersRacing) {
  for (int i = 0; i < 20; ++i) Snap(0, "VALIDATING", 120);
  for (bool commit_first : {true, false}) {
    db_.Exec("DELETE FROM awc.jobs WHERE dedupe_key IS NOT NULL");
    auto first = db_.Connect("planner-a");
    auto second = db_.Connect("planner-b");
    ASSERT_TRUE(first->Exec("BEGIN").ok());
    Result<scheduler::PlanResult> a =
        scheduler::RunPlanner(*first, "validate", options_);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->enqueued, 20);
    Result<scheduler::PlanResult> b = Status::Internal("not run");
    std::thread racer(
        [&] { b = scheduler::RunPlanner(*second, "validate", options_); });
    // The second planner blocks on the first's uncommitted rows.
    EXPECT_TRUE(WaitUntil([&] {
      return db_.Scalar(
                 "SELECT wait_event_type FROM pg_stat_activity WHERE "
                 "application_name = 'planner-b'") == "Lock";
    }));
    ASSERT_TRUE(first->Exec(commit_first ? "COMMIT" : "ROLLBACK").ok());
    racer.join();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(b->enqueued, commit_first ? 0 : 20);
    EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs WHERE dedupe_key IS NOT "
                      "NULL"),
              20);
    EXPECT_EQ(db_.Int("SELECT count(DISTINCT dedupe_key) FROM awc.jobs WHERE "
                      "dedupe_key IS NOT NULL"),
              20);
  }
}

}  // namespace
}  // namespace awc::testing
