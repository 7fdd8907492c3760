#include "queue/claim_cursor.h"

#include <gtest/gtest.h>

namespace awc::queue {
namespace {

constexpr int64_t kMin = ClaimCursor::kMinusInfinity;

TEST(ClaimCursorTest, ANewCursorStartsAtTheStartAndItsFirstClaimIsAFullPass) {
  ClaimCursor cursor;
  EXPECT_TRUE(cursor.at_start());
  EXPECT_EQ(cursor.micros_param(), std::nullopt);  // -infinity, as NULL
  EXPECT_EQ(cursor.id_param(), std::to_string(kMin));
  EXPECT_TRUE(cursor.Begin(100.0));
}

TEST(ClaimCursorTest, AClaimMovesItJustPastTheClaimedJob) {
  ClaimCursor cursor;
  cursor.Claimed(1'700'000'000'000'000, 41);
  EXPECT_FALSE(cursor.at_start());
  EXPECT_EQ(cursor.micros_param(), "1700000000000000");
  // The claim's bound is inclusive: the next job of the same run_at.
  EXPECT_EQ(cursor.id_param(), "42");
}

TEST(ClaimCursorTest, AClaimThatFoundNothingMovesItOnToItsNowNeverBack) {
  ClaimCursor cursor;
  // From the start, nothing: the next claim starts at the first one's now()
  // rather than at the start again.
  cursor.Passed(9'000);
  EXPECT_FALSE(cursor.at_start());
  EXPECT_EQ(cursor.micros_param(), "9000");
  EXPECT_EQ(cursor.id_param(), std::to_string(kMin));
  // Every id of that run_at is still ahead: not even its own now() moves it.
  cursor.Passed(9'000);
  EXPECT_EQ(cursor.id_param(), std::to_string(kMin));
  // A cursor further on stays (a job claimed after a later now()).
  cursor.Claimed(12'000, 3);
  cursor.Passed(11'000);
  EXPECT_EQ(cursor.micros_param(), "12000");
  EXPECT_EQ(cursor.id_param(), "4");
  // No now() to go by (a column that did not parse): it stays.
  cursor.Passed(kMin);
  EXPECT_EQ(cursor.micros_param(), "12000");
}

TEST(ClaimCursorTest, AJobReadyBehindTheCursorMovesItBackToBeforeItsRunAt) {
  ClaimCursor cursor;
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(4'000);
  EXPECT_EQ(cursor.micros_param(), "4000");
  EXPECT_EQ(cursor.id_param(), std::to_string(kMin));
  // Of the same run_at as the cursor: every id of it again.
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(5'000);
  EXPECT_EQ(cursor.micros_param(), "5000");
  EXPECT_EQ(cursor.id_param(), std::to_string(kMin));
}

TEST(ClaimCursorTest, AJobReadyAheadOfTheCursorLeavesItWhereItIs) {
  ClaimCursor cursor;
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(6'000);
  EXPECT_EQ(cursor.micros_param(), "5000");
  EXPECT_EQ(cursor.id_param(), "8");
}

TEST(ClaimCursorTest, NotificationsSayWhereOrRewindToTheStart) {
  ClaimCursor cursor;
  cursor.Claimed(5'000, 7);
  cursor.Notified("-12");  // before the epoch
  EXPECT_EQ(cursor.micros_param(), "-12");
  cursor.Claimed(5'000, 7);
  cursor.Notified("");  // awc.jobs_notify(): anywhere (a kind resumed)
  EXPECT_TRUE(cursor.at_start());
  cursor.Claimed(5'000, 7);
  cursor.Notified("not a number");
  EXPECT_TRUE(cursor.at_start());
  cursor.Claimed(5'000, 7);
  cursor.Notified(nullptr);
  EXPECT_TRUE(cursor.at_start());
}

TEST(ClaimCursorTest, AFailedClaimRewinds) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(0.0));
  cursor.End(true, true, 0.01, 0.01);
  cursor.Claimed(5'000, 7);
  EXPECT_FALSE(cursor.Begin(0.5));
  cursor.End(false, false, 0.6, 0.1);
  EXPECT_TRUE(cursor.at_start());
}

TEST(ClaimCursorTest, FullPassesComeBackAfterASecondOrFiftyTimesTheirCost) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(10.0));
  cursor.End(true, true, 10.001, 0.001);  // cheap: again after 1 s
  cursor.Claimed(5'000, 7);
  EXPECT_FALSE(cursor.Begin(10.9));
  cursor.End(false, true, 10.9, 0.0);
  EXPECT_TRUE(cursor.Begin(11.002));  // due: rewound
  EXPECT_TRUE(cursor.at_start());
  cursor.End(true, true, 11.302, 0.3);  // a pinned horizon's 0.3 s pass
  cursor.Claimed(6'000, 9);
  EXPECT_FALSE(cursor.Begin(11.302 + 14.9));
  EXPECT_TRUE(cursor.Begin(11.302 + 15.0));
}

TEST(ClaimCursorTest, AClaimThatStartsAtTheStartCountsAsAFullPass) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(0.0));
  cursor.End(true, true, 0.0, 0.0);
  cursor.Claimed(5'000, 7);
  cursor.Notified("");
  // Not due by the clock, but rewound: this claim is a full pass, and
  // postpones the next.
  EXPECT_TRUE(cursor.Begin(0.2));
  cursor.End(true, true, 0.2, 0.0);
  EXPECT_DOUBLE_EQ(cursor.clock().due_at(), 1.2);
}

TEST(FullPassClockTest, IsDueAtOnceThenAfterItsIntervalAndWhenForced) {
  FullPassClock clock;
  EXPECT_TRUE(clock.Due(0.0));
  clock.Done(5.0, 0.1);  // 50 x 0.1 s
  EXPECT_FALSE(clock.Due(9.99));
  EXPECT_TRUE(clock.Due(10.0));
  clock.Done(20.0, 0.0);
  EXPECT_FALSE(clock.Due(20.5));
  clock.Force();
  EXPECT_TRUE(clock.Due(20.5));
}

}  // namespace
}  // namespace awc::queue
