// workspace_expire's state machine and snapshot_retain's policy, against a
// real database.
#include <gtest/gtest.h>

#include "handlers/snapshot_retain.h"
#include "handlers/workspace_expire.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

class LifecycleTest : public ::testing::Test {
 protected:
  LifecycleTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    db_.Migrate();
    handlers::HandlerOptions o;
    o.retention_grace_secs = 3600;
    ctx_ = std::make_unique<TestContext>(db_, *store_, o);
    root_ = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  }

  queue::Outcome Expire(int64_t ws) {
    return handlers::ExpireWorkspace(*ctx_, handlers::WorkspacePayload{ws});
  }
  queue::Outcome Retain(int64_t snap) {
    return handlers::RetainSnapshot(*ctx_, handlers::SnapshotPayload{snap});
  }
  std::string WsState(int64_t ws) {
    return db_.Scalar("SELECT state FROM awc.workspaces WHERE id = $1",
                      {std::to_string(ws)});
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  void SetWs(int64_t ws, const std::string& assignments) {
    db_.Exec("UPDATE awc.workspaces SET " + assignments + " WHERE id = $1",
             {std::to_string(ws)});
  }
  // A READY snapshot of `ws` created `age_secs` ago.
  int64_t Ready(int64_t ws, int64_t age_secs) {
    int64_t id = cas_.Snapshot(root_, "READY", ws);
    db_.Exec(
        "UPDATE awc.snapshots SET created_at = now() - make_interval(secs "
        "=> $2) WHERE id = $1",
        {std::to_string(id), std::to_string(age_secs)});
    return id;
  }
  int64_t Audits(const std::string& event) {
    return db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = $1",
                   {event});
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<TestContext> ctx_;
  std::string root_;
};

TEST_F(LifecycleTest, ActiveWorkspaceNotDueStaysActive) {
  int64_t ws = cas_.Workspace();
  SetWs(ws, "expires_at = now() + interval '1 day'");
  queue::Outcome o = Expire(ws);
  EXPECT_EQ(ResultField(o, "verdict"), "unchanged");
  EXPECT_FALSE(ResultField(o, "next_due").empty());
  EXPECT_NE(ResultField(o, "next_due"), "null");
  EXPECT_EQ(WsState(ws), "ACTIVE");
  // No expiry at all: nothing is ever due.
  int64_t forever = cas_.Workspace();
  EXPECT_EQ(ResultField(Expire(forever), "next_due"), "null");
}

TEST_F(LifecycleTest, FullLifecycleActiveExpiringExpired) {
  int64_t ws = cas_.Workspace();
  int64_t a = Ready(ws, 10), b = cas_.Snapshot(root_, "VALIDATING", ws);
  SetWs(ws, "expires_at = now() - interval '1 minute'");
  queue::Outcome o = Expire(ws);
  EXPECT_EQ(ResultField(o, "verdict"), "transitioned");
  EXPECT_EQ(ResultField(o, "to"), "EXPIRING");
  EXPECT_EQ(WsState(ws), "EXPIRING");
  EXPECT_EQ(Audits("workspace.expiring"), 1);

  // Inside the grace: no change, and the result says when.
  o = Expire(ws);
  EXPECT_EQ(ResultField(o, "verdict"), "unchanged");
  EXPECT_NE(ResultField(o, "next_due"), "null");
  EXPECT_EQ(SnapState(a), "READY");

  // Grace over: EXPIRED and every snapshot released.
  SetWs(ws, "expiring_since = now() - interval '2 hours'");
  o = Expire(ws);
  EXPECT_EQ(ResultField(o, "to"), "EXPIRED");
  EXPECT_EQ(ResultField(o, "released_snapshots"), "2");
  EXPECT_EQ(WsState(ws), "EXPIRED");
  EXPECT_EQ(SnapState(a), "RELEASED");
  EXPECT_EQ(SnapState(b), "RELEASED");
  EXPECT_EQ(db_.Scalar("SELECT expired_at IS NOT NULL FROM awc.workspaces "
                       "WHERE id = $1",
                       {std::to_string(ws)}),
            "t");
  EXPECT_EQ(Audits("workspace.expired"), 1);

  o = Expire(ws);
  EXPECT_EQ(ResultField(o, "verdict"), "skipped");
  EXPECT_EQ(Audits("workspace.expired"), 1);
}

TEST_F(LifecycleTest, RenewedWorkspaceReturnsToActive) {
  int64_t ws = cas_.Workspace();
  SetWs(ws, "expires_at = now() - interval '1 minute'");
  Expire(ws);
  ASSERT_EQ(WsState(ws), "EXPIRING");
  SetWs(ws,
        "expires_at = now() + interval '30 days', expiring_since = now() "
        "- interval '2 hours'");
  queue::Outcome o = Expire(ws);
  EXPECT_EQ(ResultField(o, "from"), "EXPIRING");
  EXPECT_EQ(ResultField(o, "to"), "ACTIVE");
  EXPECT_EQ(WsState(ws), "ACTIVE");
  EXPECT_EQ(
      db_.Scalar("SELECT expiring_since FROM awc.workspaces WHERE id = $1",
                 {std::to_string(ws)}),
      "NULL");
  EXPECT_EQ(Audits("workspace.renewed"), 1);
  // Renewal by removing the expiry altogether also counts.
  SetWs(ws, "expires_at = now() - interval '1 second'");
  Expire(ws);
  ASSERT_EQ(WsState(ws), "EXPIRING");
  SetWs(ws, "expires_at = NULL");
  EXPECT_EQ(ResultField(Expire(ws), "to"), "ACTIVE");
}

TEST_F(LifecycleTest, MissingWorkspaceIsDeadLettered) {
  EXPECT_EQ(Expire(424242).kind, queue::Outcome::Kind::kFail);
}

TEST_F(LifecycleTest, RetainKeepsTheNewestKeepLast) {
  int64_t ws = cas_.Workspace(R"({"keep_last": 2})");
  int64_t oldest = Ready(ws, 300), middle = Ready(ws, 200),
          newest = Ready(ws, 100);
  EXPECT_EQ(ResultField(Retain(newest), "reason"), "keep_last");
  EXPECT_EQ(ResultField(Retain(middle), "reason"), "keep_last");
  queue::Outcome o = Retain(oldest);
  EXPECT_EQ(ResultField(o, "verdict"), "released");
  EXPECT_EQ(ResultField(o, "reason"), "retention_policy");
  EXPECT_EQ(SnapState(oldest), "RELEASED");
  EXPECT_EQ(SnapState(middle), "READY");
  EXPECT_EQ(Audits("snapshot.released"), 1);
}

TEST_F(LifecycleTest, RetainKeepsWhatIsYoungerThanKeepWithin) {
  int64_t ws = cas_.Workspace(R"({"keep_within_secs": 3600})");
  int64_t young = Ready(ws, 60), old = Ready(ws, 7200);
  EXPECT_EQ(ResultField(Retain(young), "reason"), "keep_within_secs");
  EXPECT_EQ(ResultField(Retain(old), "verdict"), "released");
  // Both rules: kept if either keeps it.
  int64_t both =
      cas_.Workspace(R"({"keep_last": 1, "keep_within_secs": 3600})");
  int64_t b_old = Ready(both, 9000), b_young = Ready(both, 60),
          b_new = Ready(both, 10);
  EXPECT_EQ(ResultField(Retain(b_new), "reason"), "keep_last");
  EXPECT_EQ(ResultField(Retain(b_young), "reason"), "keep_within_secs");
  EXPECT_EQ(ResultField(Retain(b_old), "verdict"), "released");
}

TEST_F(LifecycleTest, APolicyThatWouldKeepNothingIsRefused) {
  // keep_last 0 (or keep_within_secs 0, or no rule at all) would release
  // every READY snapshot of the workspace at once: such a policy is taken
  // for a mistake, and a malformed policy keeps everything.
  for (const char* policy :
       {R"({"keep_last": 0})", R"({"keep_within_secs": 0})",
        R"({"keep_last": 0, "keep_within_secs": 0})",
        R"({"keep_last": 3, "keep_within_secs": 0})",
        R"({"keep_last": 0, "keep_within_secs": 60})", "{}"}) {
    SCOPED_TRACE(policy);
    int64_t ws = cas_.Workspace(policy);
    int64_t old = Ready(ws, 99999);
    queue::Outcome o = Retain(old);
    EXPECT_EQ(ResultField(o, "verdict"), "kept");
    EXPECT_EQ(ResultField(o, "reason"), "malformed_policy");
    EXPECT_EQ(SnapState(old), "READY");
  }
  EXPECT_EQ(Audits("snapshot.released"), 0);
}

TEST_F(LifecycleTest, RetainNeverReleasesPinnedOrDegradedOrWithoutPolicy) {
  int64_t ws = cas_.Workspace(R"({"keep_last": 1})");
  int64_t pinned = Ready(ws, 100);
  db_.Exec("UPDATE awc.snapshots SET pinned = true WHERE id = $1",
           {std::to_string(pinned)});
  EXPECT_EQ(ResultField(Retain(pinned), "reason"), "pinned");
  int64_t degraded = cas_.Snapshot(root_, "DEGRADED", ws);
  queue::Outcome o = Retain(degraded);
  EXPECT_EQ(ResultField(o, "verdict"), "kept");
  EXPECT_EQ(ResultField(o, "reason"), "degraded");
  EXPECT_EQ(SnapState(degraded), "DEGRADED");
  int64_t none = cas_.Workspace();
  EXPECT_EQ(ResultField(Retain(Ready(none, 99999)), "reason"), "no_policy");
  int64_t bad = cas_.Workspace(R"({"keep_last": "two"})");
  EXPECT_EQ(ResultField(Retain(Ready(bad, 99999)), "reason"),
            "malformed_policy");
  int64_t orphan = cas_.Snapshot(root_, "READY");
  EXPECT_EQ(ResultField(Retain(orphan), "reason"), "no_workspace");
  EXPECT_EQ(Audits("snapshot.released"), 0);
}

TEST_F(LifecycleTest, RetainReleasesEverythingOfAnExpiredWorkspace) {
  int64_t ws = cas_.Workspace(R"({"keep_last": 10})", "EXPIRED");
  int64_t pinned = Ready(ws, 5);
  db_.Exec("UPDATE awc.snapshots SET pinned = true WHERE id = $1",
           {std::to_string(pinned)});
  queue::Outcome o = Retain(pinned);
  EXPECT_EQ(ResultField(o, "verdict"), "released");
  EXPECT_EQ(ResultField(o, "reason"), "workspace_expired");
  EXPECT_EQ(SnapState(pinned), "RELEASED");
}

TEST_F(LifecycleTest, RetainSkipsWhatIsNotReady) {
  int64_t ws = cas_.Workspace(R"({"keep_within_secs": 1})");
  for (const char* state : {"VALIDATING", "FAILED", "RELEASED"}) {
    int64_t id = cas_.Snapshot(root_, state, ws);
    EXPECT_EQ(ResultField(Retain(id), "verdict"), "skipped");
    EXPECT_EQ(SnapState(id), state);
  }
}

}  // namespace
}  // namespace awc::testing
