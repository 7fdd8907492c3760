#include "catalog/snapshot_verdict.h"

#include <gtest/gtest.h>

namespace awc::catalog {
namespace {

TEST(SnapshotVerdictTest, EachVerdictIsAKindAndAVerdict) {
  auto labels = MetricLabels(SnapshotVerdict::kScrubDegraded);
  EXPECT_EQ(labels[0], "scrub");
  EXPECT_EQ(labels[1], "degraded");
  labels = MetricLabels(SnapshotVerdict::kValidateReady);
  EXPECT_EQ(labels[0], "validate");
  EXPECT_EQ(labels[1], "ready");
  EXPECT_EQ(std::size(kSnapshotVerdicts), 4u);
}

}  // namespace
}  // namespace awc::catalog
