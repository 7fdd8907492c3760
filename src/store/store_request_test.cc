#include "store/store_request.h"

#include <gtest/gtest.h>

namespace awc::store {
namespace {

TEST(StoreRequestTest, ResultClassesOfStatuses) {
  EXPECT_EQ(StoreResultOf(Status::OK()), StoreResult::kOk);
  EXPECT_EQ(StoreResultOf(Status::NotFound("x")), StoreResult::kNotFound);
  EXPECT_EQ(StoreResultOf(Status::Transient("x")), StoreResult::kTransient);
  EXPECT_EQ(StoreResultOf(Status::Corruption("x")), StoreResult::kError);
  EXPECT_EQ(StoreResultOf(Status::FailedPrecondition("x")),
            StoreResult::kError);
  EXPECT_EQ(StoreResultOf(Status::IoError("x")), StoreResult::kError);
}

TEST(StoreRequestTest, LabelsOfOpsResultsAndStores) {
  EXPECT_STREQ(StoreResultName(StoreResult::kAborted), "aborted");
  EXPECT_STREQ(StoreResultName(StoreResult::kNotFound), "not_found");
  EXPECT_STREQ(StoreOpName(StoreOp::kList), "list");
  EXPECT_EQ(MetricLabels(StoreUrl::Scheme::kS3)[0], "s3");
  EXPECT_EQ(MetricLabels(StoreUrl::Scheme::kMemory)[0], "memory");
  EXPECT_EQ(MetricLabels(StoreOp::kDelete)[0], "delete");
  EXPECT_EQ(MetricLabels(StoreResult::kTransient)[0], "transient");
  EXPECT_EQ(std::size(kStoreOps), 5u);
  EXPECT_EQ(std::size(kStoreResults), 5u);
}

}  // namespace
}  // namespace awc::store
