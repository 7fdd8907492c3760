#include "common/build_version.h"

#include <gtest/gtest.h>

#include <string>

#include "common/build_version_testing.h"

namespace awc {
namespace {

TEST(BuildVersionTest, IsTheProjectVersionUnlessATestBuildSaysOtherwise) {
  EXPECT_EQ(std::string(BuildVersion()), AWC_VERSION);
  SetBuildVersionForTest("9.9.9-next");
  EXPECT_EQ(std::string(BuildVersion()), "9.9.9-next");
  SetBuildVersionForTest(AWC_VERSION);
}

}  // namespace
}  // namespace awc
