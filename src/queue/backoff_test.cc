#include "queue/backoff.h"

#include <gtest/gtest.h>

#include <set>

namespace awc::queue {
namespace {

TEST(BackoffTest, BaseFollowsTheDocumentedTable) {
  // docs/queue.md, "Queue semantics": 5 s doubling per retry, capped
  // at 300 s from the 7th retry on (k = 1 is the first retry).
  EXPECT_EQ(BackoffBaseSecs(1), 5);
  EXPECT_EQ(BackoffBaseSecs(2), 10);
  EXPECT_EQ(BackoffBaseSecs(3), 20);
  EXPECT_EQ(BackoffBaseSecs(4), 40);
  EXPECT_EQ(BackoffBaseSecs(5), 80);
  EXPECT_EQ(BackoffBaseSecs(6), 160);
  EXPECT_EQ(BackoffBaseSecs(7), 300);
  EXPECT_EQ(BackoffBaseSecs(8), 300);
  EXPECT_EQ(BackoffBaseSecs(1000), 300);
  EXPECT_EQ(BackoffBaseSecs(0), 5);
  EXPECT_EQ(BackoffBaseSecs(-3), 5);
}

TEST(BackoffTest, DelayStaysWithinBaseAndTwiceBase) {
  Xorshift32 rng = Xorshift32::FromWorkerId("host-a-1");
  for (int k = 1; k <= 10; ++k) {
    double base = static_cast<double>(BackoffBaseSecs(k));
    double lo = 2 * base, hi = 0;
    for (int i = 0; i < 5000; ++i) {
      double d = BackoffDelaySecs(k, rng);
      ASSERT_GE(d, base);
      ASSERT_LE(d, 2 * base);
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    // Full jitter: the draws cover most of [base, 2 * base].
    EXPECT_LT(lo, base * 1.05) << "k=" << k;
    EXPECT_GT(hi, base * 1.95) << "k=" << k;
  }
}

TEST(XorshiftTest, SameWorkerIdSameSequence) {
  Xorshift32 a = Xorshift32::FromWorkerId("awc-worker-3");
  Xorshift32 b = Xorshift32::FromWorkerId("awc-worker-3");
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.Next(), b.Next());
}

TEST(XorshiftTest, DifferentWorkersDiverge) {
  std::set<uint32_t> firsts;
  for (int n = 1; n <= 64; ++n) {
    firsts.insert(
        Xorshift32::FromWorkerId("awc-worker-" + std::to_string(n)).Next());
  }
  EXPECT_EQ(firsts.size(), 64u);
}

TEST(XorshiftTest, KnownSequenceFromSeed) {
  // Marsaglia's xorshift32 (13, 17, 5) from seed 1.
  Xorshift32 rng(1);
  EXPECT_EQ(rng.Next(), 270369u);
  EXPECT_EQ(rng.Next(), 67634689u);
  EXPECT_EQ(rng.Next(), 2647435461u);
}

TEST(XorshiftTest, ZeroSeedIsNotStuck) {
  Xorshift32 rng(0);
  EXPECT_NE(rng.Next(), 0u);
}

}  // namespace
}  // namespace awc::queue
