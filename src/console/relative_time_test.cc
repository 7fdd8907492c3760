#include "console/relative_time.h"

#include <gtest/gtest.h>

#include <cmath>

namespace awc::console {
namespace {

TEST(RelativeTimeTest, DurationsUseTheLargestUnitThatFits) {
  EXPECT_EQ(Duration(0), "0 s");
  EXPECT_EQ(Duration(0.9), "0 s");
  EXPECT_EQ(Duration(59.9), "59 s");
  EXPECT_EQ(Duration(60), "1 min");
  EXPECT_EQ(Duration(3599), "59 min");
  EXPECT_EQ(Duration(3600), "1 h");
  EXPECT_EQ(Duration(86399), "23 h");
  EXPECT_EQ(Duration(86400), "1 d");
  EXPECT_EQ(Duration(400 * 86400.0), "400 d");
  EXPECT_EQ(Duration(-180), "3 min");
}

TEST(RelativeTimeTest, PastFutureAndNow) {
  double now = 1000000;
  EXPECT_EQ(Relative(now - 180, now), "3 min ago");
  EXPECT_EQ(Relative(now + 7200, now), "in 2 h");
  EXPECT_EQ(Relative(now - 0.5, now), "just now");
  EXPECT_EQ(Relative(now + 0.5, now), "just now");
  EXPECT_EQ(Relative(now - 1, now), "1 s ago");
  EXPECT_EQ(Relative(now - 3 * 86400 - 5, now), "3 d ago");
}

TEST(RelativeTimeTest, AbsoluteTimeForTheHoverText) {
  EXPECT_EQ(AbsoluteUtc(1796031896), "2026-11-30 09:44:56 UTC");
  EXPECT_EQ(AbsoluteUtc(1796031896.9), "2026-11-30 09:44:56 UTC");
}

TEST(RelativeTimeTest, IsoTimeIsWhatParseIsoUtcReads) {
  EXPECT_EQ(IsoUtc(1796031896.9), "2026-11-30T09:44:56Z");
  EXPECT_EQ(ParseIsoUtc(IsoUtc(1796031896)), 1796031896);
  EXPECT_EQ(IsoUtc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(IsoUtc(std::nan("")), "?");
}

}  // namespace
}  // namespace awc::console
