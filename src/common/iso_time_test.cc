#include "common/iso_time.h"

#include <gtest/gtest.h>

namespace awc {
namespace {

TEST(IsoTimeTest, ParsesTheUtcForm) {
  EXPECT_EQ(ParseIsoUtc("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(ParseIsoUtc("2026-11-30T09:44:56Z"), 1796031896.0);
  EXPECT_EQ(ParseIsoUtc("2024-02-29T23:59:59Z"), 1709251199.0);
}

TEST(IsoTimeTest, DropsAFractionOfASecond) {
  EXPECT_EQ(ParseIsoUtc("2026-11-30T09:44:56.000Z"), 1796031896.0);
  EXPECT_EQ(ParseIsoUtc("2026-11-30T09:44:56.999999Z"), 1796031896.0);
}

TEST(IsoTimeTest, RefusesAnythingElse) {
  for (const char* bad :
       {"", "2026-11-30", "2026-11-30 09:44:56Z", "2026-11-30T09:44:56",
        "2026-11-30T09:44:56+01", "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z",
        "2026-01-01T00:60:00Z", "2026-1-01T00:00:00Z", "20x6-01-01T00:00:00Z",
        "2026-01-01T00:00:00Zextra", "2026-01-01T00:00:00.Z",
        "2026-01-01T00:00:00.12", "2026-01-01T00:00:00.1aZ"}) {
    EXPECT_FALSE(ParseIsoUtc(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace awc
