#include "scheduler/spec.h"

#include <gtest/gtest.h>

namespace awc::scheduler {
namespace {

constexpr int64_t kS = kMicros;
// 2026-11-30T09:44:56Z, a Monday.
constexpr int64_t kMonday = 1796031896LL * kS;

TEST(SpecTest, ParsesEveryForm) {
  EXPECT_EQ(*ParseSpec("@every 90s"), (Spec{90, 0}));
  EXPECT_EQ(*ParseSpec("@every 6h"), (Spec{6 * 3600, 0}));
  EXPECT_EQ(*ParseSpec("@every 1h30m"), (Spec{5400, 0}));
  EXPECT_EQ(*ParseSpec("@every 2h0m30s"), (Spec{7230, 0}));
  EXPECT_EQ(*ParseSpec("@every 1m90s"), (Spec{150, 0}));
  EXPECT_EQ(*ParseSpec("@every 8784h"), (Spec{kMaxPeriodSecs, 0}));
  EXPECT_EQ(*ParseSpec("@hourly"), (Spec{3600, 0}));
  EXPECT_EQ(*ParseSpec("@daily"), (Spec{86400, 0}));
  EXPECT_EQ(*ParseSpec("@weekly"), (Spec{604800, 3 * 86400}));
}

TEST(SpecTest, RefusesWithAReason) {
  for (const char* bad :
       {"", "@every", "@every ", "@every 5", "@every s", "@every 5x",
        "@every 5 s", "@every  5s", "@every 5S", "@monthly", "every 5s",
        "@every -5s", "@every 5s ", " @hourly", "@HOURLY", "0 * * * *"}) {
    Result<Spec> s = ParseSpec(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(s.status().IsInvalidArgument());
    EXPECT_NE(s.status().message().find("expected @every"), std::string::npos)
        << bad << ": " << s.status().message();
  }
  EXPECT_NE(ParseSpec("@every 30m1h").status().message().find("order h, m, s"),
            std::string::npos);
  EXPECT_NE(ParseSpec("@every 1h1h").status().message().find("order h, m, s"),
            std::string::npos);
  EXPECT_NE(ParseSpec("@every 0s").status().message().find("at least 1s"),
            std::string::npos);
  EXPECT_NE(ParseSpec("@every 0h0m0s").status().message().find("at least 1s"),
            std::string::npos);
  EXPECT_NE(ParseSpec("@every 8785h").status().message().find("at most 366"),
            std::string::npos);
  EXPECT_NE(ParseSpec("@every 1234567890s").status().message().find("9 digits"),
            std::string::npos);
  EXPECT_EQ(ParseSpec("@every 7x").status().message(),
            "schedule spec \"@every 7x\": expected @every <N>h<N>m<N>s (e.g. "
            "@every 90s, @every 1h30m), @hourly, @daily or @weekly");
}

TEST(SpecTest, EveryCountsFromTheEpoch) {
  Spec six_hours = *ParseSpec("@every 6h");
  // 09:44:56 -> 12:00:00 the same day.
  EXPECT_EQ(NextAfter(six_hours, kMonday),
            kMonday + (2 * 3600 + 15 * 60 + 4) * kS);
  // Strictly after: an instant of the grid gives the next one.
  int64_t noon = kMonday + (2 * 3600 + 15 * 60 + 4) * kS;
  EXPECT_EQ(NextAfter(six_hours, noon), noon + 6 * 3600 * kS);
  EXPECT_EQ(NextAfter(six_hours, noon - 1), noon);
  Spec ninety = *ParseSpec("@every 90s");
  EXPECT_EQ(NextAfter(ninety, 0), 90 * kS);
  EXPECT_EQ(NextAfter(ninety, 89 * kS + 999999), 90 * kS);
}

TEST(SpecTest, NamedSpecsFallOnTheirBoundaries) {
  int64_t next_hour = kMonday + (15 * 60 + 4) * kS;  // 10:00:00
  EXPECT_EQ(NextAfter(*ParseSpec("@hourly"), kMonday), next_hour);
  int64_t midnight = kMonday + (14 * 3600 + 15 * 60 + 4) * kS;  // Tue 00:00
  EXPECT_EQ(NextAfter(*ParseSpec("@daily"), kMonday), midnight);
  // The next Sunday 00:00 after a Monday is six days after Tuesday 00:00.
  EXPECT_EQ(NextAfter(*ParseSpec("@weekly"), kMonday),
            midnight + 5 * 86400 * kS);
  // 1970-01-04 00:00 UTC was a Sunday.
  EXPECT_EQ(NextAfter(*ParseSpec("@weekly"), 0), 3 * 86400 * kS);
}

TEST(SpecTest, MissedPeriodsAreCountedOnce) {
  Spec two = *ParseSpec("@every 2s");
  int64_t slot = 1000 * kS;  // on the grid
  EXPECT_EQ(MissedBetween(two, slot, slot), 0);
  EXPECT_EQ(MissedBetween(two, slot, slot - kS), 0);
  EXPECT_EQ(MissedBetween(two, slot, slot + 1), 0);
  EXPECT_EQ(MissedBetween(two, slot, slot + 2 * kS - 1), 0);
  EXPECT_EQ(MissedBetween(two, slot, slot + 2 * kS), 1);
  EXPECT_EQ(MissedBetween(two, slot, slot + 7 * kS), 3);
  // A firing at t covers the slot and the missed instants; the next slot is
  // the first instant after t, so consecutive firings tile the grid.
  int64_t t = slot + 7 * kS + 123;
  EXPECT_EQ(NextAfter(two, t),
            slot + (1 + MissedBetween(two, slot, t)) * 2 * kS);
  // A slot off the grid (a first firing, `run`) covers what follows it.
  EXPECT_EQ(MissedBetween(two, slot + kS / 2, slot + kS), 0);
  EXPECT_EQ(MissedBetween(two, slot + kS / 2, slot + 2 * kS), 1);
}

}  // namespace
}  // namespace awc::scheduler
