// Where a next run more than a period ahead belongs, for each kind of spec
// (docs/scheduler.md, "Clamps"). The database side is
// tests/scheduler/schedule_clamp_test.cc.
#include "scheduler/schedule_clamp.h"

#include <gtest/gtest.h>

#include "scheduler/firing.h"
#include "scheduler/spec.h"

namespace awc::scheduler {
namespace {

constexpr int64_t kS = kMicros;
// 2026-11-30T09:44:56.5Z, a Monday.
constexpr int64_t kNow = 1796031896LL * kS + kS / 2;
constexpr int64_t kYears = 10LL * 365 * 86400 * kS;

TEST(ClampTargetTest, EachSpecIsBoundByOnePeriodAndGoesToItsNextInstant) {
  struct Case {
    const char* spec;
    int64_t period;
    int64_t next;  // the spec's first instant after kNow
  } cases[] = {
      {"@every 90s", 90, (kNow / (90 * kS) + 1) * 90 * kS},
      {"@every 1h30m", 5400, (kNow / (5400 * kS) + 1) * 5400 * kS},
      {"@hourly", 3600, 1796032800LL * kS},       // 10:00
      {"@daily", 86400, 1796083200LL * kS},       // Tuesday 00:00
      {"@weekly", 7 * 86400, 1796515200LL * kS},  // Sunday 00:00
      {"@every 8784h", kMaxPeriodSecs, 1802476800LL * kS},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    int64_t period = 0;
    // Within one period (the bound itself included): left alone.
    EXPECT_EQ(ClampTarget(c.spec, kNow + c.period * kS, kNow, &period),
              std::nullopt);
    EXPECT_EQ(period, c.period);
    EXPECT_EQ(ClampTarget(c.spec, c.next, kNow), std::nullopt);
    EXPECT_EQ(ClampTarget(c.spec, kNow - kS, kNow), std::nullopt);
    // Beyond it, by a microsecond or by years: the next instant, which is
    // what a firing now would have set.
    EXPECT_EQ(ClampTarget(c.spec, kNow + c.period * kS + 1, kNow), c.next);
    EXPECT_EQ(ClampTarget(c.spec, kNow + kYears, kNow), c.next);
    EXPECT_EQ(c.next, NextAfter(*ParseSpec(c.spec), kNow));
    EXPECT_GT(c.next, kNow);
    EXPECT_LE(c.next, kNow + c.period * kS);
  }
}

TEST(ClampTargetTest, ASpecThatDoesNotParseIsBoundByItsRetryAndBecomesDue) {
  int64_t period = 0;
  EXPECT_EQ(ClampTarget("@every 0s", kNow + kYears, kNow, &period), kNow);
  EXPECT_EQ(period, kInvalidSpecRetrySecs);
  // Where its error run put it: left alone.
  EXPECT_EQ(ClampTarget("@every 0s", kNow + kInvalidSpecRetrySecs * kS, kNow),
            std::nullopt);
}

}  // namespace
}  // namespace awc::scheduler
