// workspace_expire's state machine against a real database.
#include <gtest/gtest.h>

#include "tests/handlers/lifecycle_fixture.h"

namespace awc::testing {
namespace {

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

}  // namespace
}  // namespace awc::testing
