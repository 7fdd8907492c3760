#include "queue/claim_cursor.h"

#include <gtest/gtest.h>

namespace awc::queue {
namespace {

constexpr int64_t kMin = ClaimCursor::kMinusInfinity;

// A position's run_at as the statement gets it: NULL for -infinity.
std::optional<int64_t> MicrosOf(const ClaimPosition& p) { return p.micros(); }

TEST(ClaimCursorTest, ANewCursorStartsAtTheStartAndItsFirstClaimIsAFullPass) {
  ClaimCursor cursor;
  EXPECT_TRUE(cursor.at_start());
  // -infinity as NULL, for each of the ten priorities.
  EXPECT_EQ(cursor.micros_param(),
            "{NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL}");
  std::string min = std::to_string(kMin);
  EXPECT_EQ(cursor.ids_param(), "{" + min + "," + min + "," + min + "," +
                                    min + "," + min + "," + min + "," + min +
                                    "," + min + "," + min + "," + min + "}");
  EXPECT_TRUE(cursor.Begin(100.0));
}

TEST(ClaimCursorTest, AClaimMovesItsPriorityPastTheJobAndTheMoreUrgentToNow) {
  ClaimCursor cursor;
  cursor.Claimed(3, 5'000, 41, 9'000);
  EXPECT_FALSE(cursor.at_start());
  // Priorities 0 to 2 were walked up to the claim's now() and had nothing.
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(cursor.position(p).micros(), 9'000) << p;
    EXPECT_EQ(cursor.position(p).id(), kMin) << p;
  }
  EXPECT_EQ(cursor.position(3).micros(), 5'000);
  EXPECT_EQ(cursor.position(3).id(), 42);
  // The less urgent were not walked.
  for (int p = 4; p < ClaimCursor::kPriorities; ++p) {
    EXPECT_TRUE(cursor.position(p).at_start()) << p;
  }
  EXPECT_EQ(cursor.micros_param(),
            "{9000,9000,9000,5000,NULL,NULL,NULL,NULL,NULL,NULL}");
}

TEST(ClaimCursorTest, NothingFoundMovesEveryPriorityAndANotificationEveryOne) {
  ClaimCursor cursor;
  cursor.Claimed(9, 5'000, 7, 6'000);
  cursor.Passed(8'000);
  for (int p = 0; p < ClaimCursor::kPriorities; ++p) {
    EXPECT_EQ(cursor.position(p).micros(), 8'000) << p;
  }
  // Which priority the job has, the notification does not say.
  cursor.JobReadyAt(7'000);
  for (int p = 0; p < ClaimCursor::kPriorities; ++p) {
    EXPECT_EQ(cursor.position(p).micros(), 7'000) << p;
  }
}

TEST(ClaimCursorTest, APriorityOutOfRangeRewinds) {
  ClaimCursor cursor;
  cursor.Claimed(2, 5'000, 7, 6'000);
  cursor.Claimed(10, 5'000, 8, 6'000);
  EXPECT_TRUE(cursor.at_start());
  cursor.Claimed(2, 5'000, 7, 6'000);
  cursor.Claimed(-1, 5'000, 8, 6'000);
  EXPECT_TRUE(cursor.at_start());
}

TEST(ClaimPositionTest, AClaimMovesItJustPastTheClaimedJob) {
  ClaimPosition cursor;
  cursor.Claimed(1'700'000'000'000'000, 41);
  EXPECT_FALSE(cursor.at_start());
  EXPECT_EQ(MicrosOf(cursor), 1'700'000'000'000'000);
  // The claim's bound is inclusive: the next job of the same run_at.
  EXPECT_EQ(cursor.id(), 42);
}

TEST(ClaimPositionTest, AClaimThatFoundNothingMovesItOnToItsNowNeverBack) {
  ClaimPosition cursor;
  // From the start, nothing: the next claim starts at the first one's now()
  // rather than at the start again.
  cursor.Passed(9'000);
  EXPECT_FALSE(cursor.at_start());
  EXPECT_EQ(MicrosOf(cursor), 9'000);
  EXPECT_EQ(cursor.id(), kMin);
  // Every id of that run_at is still ahead: not even its own now() moves it.
  cursor.Passed(9'000);
  EXPECT_EQ(cursor.id(), kMin);
  // A cursor further on stays (a job claimed after a later now()).
  cursor.Claimed(12'000, 3);
  cursor.Passed(11'000);
  EXPECT_EQ(MicrosOf(cursor), 12'000);
  EXPECT_EQ(cursor.id(), 4);
  // No now() to go by (a column that did not parse): it stays.
  cursor.Passed(kMin);
  EXPECT_EQ(MicrosOf(cursor), 12'000);
}

TEST(ClaimPositionTest, AJobReadyBehindTheCursorMovesItBackToBeforeItsRunAt) {
  ClaimPosition cursor;
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(4'000);
  EXPECT_EQ(MicrosOf(cursor), 4'000);
  EXPECT_EQ(cursor.id(), kMin);
  // Of the same run_at as the cursor: every id of it again.
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(5'000);
  EXPECT_EQ(MicrosOf(cursor), 5'000);
  EXPECT_EQ(cursor.id(), kMin);
}

TEST(ClaimPositionTest, AJobReadyAheadOfTheCursorLeavesItWhereItIs) {
  ClaimPosition cursor;
  cursor.Claimed(5'000, 7);
  cursor.JobReadyAt(6'000);
  EXPECT_EQ(MicrosOf(cursor), 5'000);
  EXPECT_EQ(cursor.id(), 8);
}

TEST(ClaimCursorTest, NotificationsSayWhereOrRewindToTheStart) {
  ClaimCursor cursor;
  cursor.Claimed(0, 5'000, 7, 5'000);
  cursor.Notified("-12");  // before the epoch
  EXPECT_EQ(cursor.position(0).micros(), -12);
  cursor.Claimed(0, 5'000, 7, 5'000);
  cursor.Notified("");  // awc.jobs_notify(): anywhere (a kind resumed)
  EXPECT_TRUE(cursor.at_start());
  cursor.Claimed(0, 5'000, 7, 5'000);
  cursor.Notified("not a number");
  EXPECT_TRUE(cursor.at_start());
  cursor.Claimed(0, 5'000, 7, 5'000);
  cursor.Notified(nullptr);
  EXPECT_TRUE(cursor.at_start());
}

TEST(ClaimCursorTest, AFailedClaimRewinds) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(0.0));
  cursor.End(true, true, 0.01, 0.01);
  cursor.Claimed(0, 5'000, 7, 5'000);
  EXPECT_FALSE(cursor.Begin(0.5));
  cursor.End(false, false, 0.6, 0.1);
  EXPECT_TRUE(cursor.at_start());
}

TEST(ClaimCursorTest, FullPassesComeBackAfterASecondOrFiftyTimesTheirCost) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(10.0));
  cursor.End(true, true, 10.001, 0.001);  // cheap: again after 1 s
  cursor.Claimed(0, 5'000, 7, 5'000);
  EXPECT_FALSE(cursor.Begin(10.9));
  cursor.End(false, true, 10.9, 0.0);
  EXPECT_TRUE(cursor.Begin(11.002));  // due: rewound
  EXPECT_TRUE(cursor.at_start());
  cursor.End(true, true, 11.302, 0.3);  // a pinned horizon's 0.3 s pass
  cursor.Claimed(0, 6'000, 9, 6'000);
  EXPECT_FALSE(cursor.Begin(11.302 + 14.9));
  EXPECT_TRUE(cursor.Begin(11.302 + 15.0));
}

TEST(ClaimCursorTest, AClaimThatStartsAtTheStartCountsAsAFullPass) {
  ClaimCursor cursor;
  ASSERT_TRUE(cursor.Begin(0.0));
  cursor.End(true, true, 0.0, 0.0);
  cursor.Claimed(0, 5'000, 7, 5'000);
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
