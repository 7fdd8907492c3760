// snapshot_retain's policy against a real database.
#include <gtest/gtest.h>

#include "tests/handlers/lifecycle_fixture.h"

namespace awc::testing {
namespace {

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
