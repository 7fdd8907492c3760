#include "migrate/compatibility.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace awc::migrate {
namespace {

constexpr Compatibility kOlder = Compatibility::kOlderBuildsRun;
constexpr Compatibility kBreaking = Compatibility::kBreaking;

TEST(CompatibilityTest, AMigrationIsCompatibleBackToTheLastBreakingOne) {
  std::vector<Migration> ms = {{1, "0001_a", "", kOlder},
                               {2, "0002_b", "", kOlder},
                               {3, "0003_c", "", kBreaking},
                               {4, "0004_d", "", kOlder},
                               {5, "0005_e", "", kOlder}};
  EXPECT_EQ(CompatibleFrom(ms),
            (std::map<int, int>{{1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 3}}));
}

// What this build's own migrations are compatible with, as docs/operations.md
// ("Rolling upgrades") lists them: from 0015 (lazy entry counts) on, every
// build runs on every later schema up to a breaking migration.
TEST(CompatibilityTest, TheEmbeddedMigrationsAsDocumented) {
  std::map<int, int> from = CompatibleFrom(EmbeddedMigrations());
  EXPECT_EQ(from[1], 1);
  EXPECT_EQ(from[9], 1);
  EXPECT_EQ(from[10], 10);
  EXPECT_EQ(from[12], 10);
  EXPECT_EQ(from[13], 13);
  EXPECT_EQ(from[14], 14);
  EXPECT_EQ(from[15], 15);
  EXPECT_EQ(from[20], 15);
  EXPECT_EQ(from[21], 15);
  EXPECT_EQ(from[22], 15);
  EXPECT_EQ(from[23], 15);
}

TEST(CompatibilityTest, ABuildRunsOnNewerMigrationsCompatibleWithWhatItKnows) {
  std::vector<AppliedCompatibility> applied = {
      {20, "0020_x", 15}, {21, "0021_y", 15}, {22, "0022_z", 21}};
  EXPECT_FALSE(FirstIncompatible(applied, 21).has_value());
  EXPECT_EQ(RequiredVersion(applied), 21);
  // A build that knows 20 does not run on 0022, which needs 21.
  std::optional<AppliedCompatibility> bad = FirstIncompatible(applied, 20);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->name, "0022_z");
  // Recorded without compatible_from (a runner from before it): only the
  // builds that know it.
  applied.push_back({23, "0023_w", std::nullopt});
  bad = FirstIncompatible(applied, 22);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->name, "0023_w");
  EXPECT_EQ(RequiredVersion(applied), 23);
  EXPECT_FALSE(FirstIncompatible(applied, 23).has_value());
}

}  // namespace
}  // namespace awc::migrate
