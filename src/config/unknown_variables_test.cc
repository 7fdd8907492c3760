#include "config/unknown_variables.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

namespace awc::config {
namespace {

std::vector<std::string> Messages(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const UnknownVariable& u : UnknownVariables(names)) {
    out.push_back(u.Message());
  }
  return out;
}

TEST(UnknownVariablesTest, AMisspelledSettingNamesTheSetting) {
  EXPECT_EQ(Messages({"AWC_WORKER_CONCURENCY"}),
            std::vector<std::string>{
                "AWC_WORKER_CONCURENCY is not a setting (ignored); did you "
                "mean AWC_WORKER_CONCURRENCY?"});
  EXPECT_EQ(Messages({"AWC_S3_SECRET_ACCESS_KEY_FIEL"}),
            std::vector<std::string>{
                "AWC_S3_SECRET_ACCESS_KEY_FIEL is not a setting (ignored); "
                "did you mean AWC_S3_SECRET_ACCESS_KEY_FILE?"});
  EXPECT_EQ(Messages({"AWC_CONFG"}),
            std::vector<std::string>{"AWC_CONFG is not a setting (ignored); "
                                     "did you mean AWC_CONFIG?"});
  EXPECT_EQ(Messages({"AWC_NOTHING_LIKE_IT"}),
            std::vector<std::string>{
                "AWC_NOTHING_LIKE_IT is not a setting (ignored)"});
  std::vector<UnknownVariable> u = UnknownVariables({"AWC_GC_DRYRUN"});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].name, "AWC_GC_DRYRUN");
  EXPECT_EQ(u[0].nearest, "AWC_GC_DRY_RUN");
}

// What the programs, the tests and the benchmarks read is no warning, nor
// is anything outside AWC_*.
TEST(UnknownVariablesTest, KnownNamesAreNotWarnedAbout) {
  EXPECT_TRUE(
      UnknownVariables({"AWC_WORKER_CONCURRENCY", "AWC_CAS_URL", "AWC_CONFIG",
                        "AWC_S3_SECRET_ACCESS_KEY_FILE",
                        "AWC_S3_REPAIR_ACCESS_KEY_ID_FILE", "AWC_S3RVER",
                        "AWC_DAG_PROPERTY_SEEDS", "AWC_NODE_MODULES",
                        "AWC_CHROMIUM", "AWC_TEST_HOST_NAME", "DATABASE_URL",
                        "DATABASE_URL_FILE", "DATABSE_URL", "PGPASSWORD",
                        "awc_worker_concurency", "HOME"})
          .empty());
  // A setting without a _FILE variant has none.
  EXPECT_EQ(Messages({"AWC_WORKER_ID_FILE"}).size(), 1u);
}

// A name is shown as one line of text.
TEST(UnknownVariablesTest, ANamesControlBytesAreEscaped) {
  EXPECT_EQ(Messages({"AWC_\x1b]0;x\a"}),
            std::vector<std::string>{
                "AWC_\\x1b]0;x\\x07 is not a setting (ignored)"});
}

TEST(UnknownVariablesTest, ProcessEnvNamesAreTheNames) {
  ASSERT_EQ(setenv("AWC_UNKNOWN_VARIABLES_TEST", "a=b", 1), 0);
  std::vector<std::string> names = ProcessEnvNames();
  unsetenv("AWC_UNKNOWN_VARIABLES_TEST");
  EXPECT_NE(std::find(names.begin(), names.end(), "AWC_UNKNOWN_VARIABLES_TEST"),
            names.end());
}

}  // namespace
}  // namespace awc::config
