#include "gc/epoch_result.h"

#include <gtest/gtest.h>

namespace awc::gc {
namespace {

TEST(EpochResultTest, EveryResultHasItsLabel) {
  EXPECT_STREQ(GcEpochResultName(GcEpochResult::kDryRun), "dry_run");
  EXPECT_STREQ(GcEpochResultName(GcEpochResult::kDeferred), "deferred");
  for (const GcEpochResultRow& row : kGcEpochResults) {
    EXPECT_STREQ(GcEpochResultName(row.value), row.name);
    EXPECT_EQ(MetricLabels(row.value)[0], row.name);
  }
  EXPECT_EQ(std::size(kGcEpochResults), 5u);
}

}  // namespace
}  // namespace awc::gc
