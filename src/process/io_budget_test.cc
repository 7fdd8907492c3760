#include "process/io_budget.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace awc::process {
namespace {

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

TEST(IoBudgetTest, ReservationsQueueAtTheRate) {
  Result<IoBudget> b = IoBudget::CreateShared();
  ASSERT_TRUE(b.ok());
  IoRates r{.bytes_per_sec = 1000, .objects_per_sec = 0};
  // The first read goes at once; each next one waits for those before it.
  EXPECT_DOUBLE_EQ(b->Reserve(r, 500, 1, 100.0), 0.0);
  EXPECT_NEAR(b->Reserve(r, 500, 1, 100.0), 0.5, 1e-9);
  EXPECT_NEAR(b->Reserve(r, 2000, 1, 100.25), 0.75, 1e-9);
  // Idle time earns no credit: after a long pause, no burst is banked.
  EXPECT_DOUBLE_EQ(b->Reserve(r, 100, 1, 200.0), 0.0);
  EXPECT_NEAR(b->Reserve(r, 100, 1, 200.0), 0.1, 1e-9);
}

TEST(IoBudgetTest, TheSlowerDimensionDecides) {
  Result<IoBudget> b = IoBudget::CreateShared();
  ASSERT_TRUE(b.ok());
  IoRates r{.bytes_per_sec = 1e9, .objects_per_sec = 10};
  EXPECT_DOUBLE_EQ(b->Reserve(r, 10, 5, 50.0), 0.0);
  EXPECT_NEAR(b->Reserve(r, 10, 5, 50.0), 0.5, 1e-9);
  IoRates none;
  EXPECT_FALSE(none.limited());
  EXPECT_DOUBLE_EQ(b->Reserve(none, 1 << 30, 1000, 50.0), 0.0);
}

// Processes forked from its creator share one budget: two of them reading
// as fast as it lets them read, together, at its rate.
TEST(IoBudgetTest, ForkedProcessesShareOneBudget) {
  Result<IoBudget> b = IoBudget::CreateShared();
  ASSERT_TRUE(b.ok());
  IoRates r{.bytes_per_sec = 4000, .objects_per_sec = 0};
  constexpr int kReads = 10;
  constexpr uint64_t kBytes = 100;  // 2 x 10 x 100 bytes: 0.5 s at 4000/s
  double start = Now();
  pid_t kids[2];
  for (pid_t& kid : kids) {
    kid = fork();
    ASSERT_GE(kid, 0);
    if (kid == 0) {
      for (int i = 0; i < kReads; ++i) {
        double wait = b->Reserve(r, kBytes, 1, Now());
        if (wait > 0) usleep(static_cast<useconds_t>(wait * 1e6));
      }
      _exit(0);
    }
  }
  for (pid_t kid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(kid, &status, 0), kid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // All but the first reservation waited for the ones before: the last
  // began no sooner than (2 x 10 - 1) x 100 / 4000 s after the first. A
  // slower machine only makes this longer.
  EXPECT_GE(Now() - start, (2 * kReads - 1) * kBytes / 4000.0 - 0.01);
}

}  // namespace
}  // namespace awc::process
