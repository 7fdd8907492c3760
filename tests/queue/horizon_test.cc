// queue::SampleHorizon against the real database: a session idle in
// transaction with an xid is named as the horizon's holder, with how long
// and how many transactions behind; sessions of other databases are not.
#include "queue/horizon.h"

#include <gtest/gtest.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

TEST(HorizonTest, ASessionIdleInTransactionIsNamedWithItsAgeAndLag) {
  TestDatabase db;
  auto me = db.Connect("sampler");
  Result<queue::Horizon> before = queue::SampleHorizon(*me);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_FALSE(before->holder.has_value());
  EXPECT_EQ(before->xids, 0);

  std::string pid;
  auto pin = db.HoldHorizon("nightly-report", &pid);
  // Three transactions after it.
  for (int i = 0; i < 3; ++i) db.Exec("SELECT txid_current()");
  // A transaction of another database holds nothing back here.
  TestDatabase other;
  auto elsewhere = other.HoldHorizon("elsewhere");

  Result<queue::Horizon> h = queue::SampleHorizon(*me);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_TRUE(h->holder.has_value());
  EXPECT_EQ(h->holder->kind, "session");
  EXPECT_EQ(h->holder->name.rfind("pid " + pid + " (", 0), 0u)
      << h->holder->name;
  EXPECT_EQ(h->holder->detail.rfind("nightly-report, ", 0), 0u)
      << h->holder->detail;
  EXPECT_NE(h->holder->detail.find("idle in transaction"), std::string::npos)
      << h->holder->detail;
  ASSERT_TRUE(h->holder->held_secs.has_value());
  EXPECT_GE(*h->holder->held_secs, 0);
  EXPECT_GE(h->xids, 3);
  EXPECT_EQ(h->xids, h->holder->xids);
  EXPECT_NE(queue::Describe(*h->holder).find("transactions behind"),
            std::string::npos);

  pin->Rollback();
  elsewhere->Rollback();
  Result<queue::Horizon> after = queue::SampleHorizon(*me);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->holder.has_value());
}

}  // namespace
}  // namespace awc::testing
