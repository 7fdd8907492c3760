#include "common/nearest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace awc {
namespace {

TEST(EditDistanceTest, CountsEditsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("CONCURENCY", "CONCURRENCY"), 1u);  // insertion
  EXPECT_EQ(EditDistance("CONCURRENCY", "CONCURENCY"), 1u);  // deletion
  EXPECT_EQ(EditDistance("LEASE", "LEAZE"), 1u);             // substitution
  EXPECT_EQ(EditDistance("WROKER", "WORKER"), 1u);           // swap
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(NearestNameTest, SuggestsOnlyANearName) {
  const std::vector<std::string> names = {
      "AWC_WORKER_ID", "AWC_WORKER_CONCURRENCY", "AWC_WORKER_LEASE_SECS",
      "AWC_GC_DRY_RUN", "AWC_CONFIG"};
  EXPECT_EQ(NearestName("AWC_WORKER_CONCURENCY", names),
            "AWC_WORKER_CONCURRENCY");
  EXPECT_EQ(NearestName("AWC_WROKER_ID", names), "AWC_WORKER_ID");
  EXPECT_EQ(NearestName("AWC_WORKER_LEASE_SEC", names),
            "AWC_WORKER_LEASE_SECS");
  EXPECT_EQ(NearestName("AWC_GC_DRYRUN", names), "AWC_GC_DRY_RUN");
  // Too far, or a short name: nothing.
  EXPECT_EQ(NearestName("AWC_SOMETHING_ELSE", names), std::nullopt);
  EXPECT_EQ(NearestName("AWC_CONFIG_FILE", names), std::nullopt);
  EXPECT_EQ(NearestName("ABC", {"ABD"}), std::nullopt);
  EXPECT_EQ(NearestName("", names), std::nullopt);
  // A name that is a candidate needs no suggestion.
  EXPECT_EQ(NearestName("AWC_CONFIG", names), std::nullopt);
  // A tie: the first.
  EXPECT_EQ(NearestName("AWC_NAME_X", {"AWC_NAME_A", "AWC_NAME_B"}),
            "AWC_NAME_A");
}

}  // namespace
}  // namespace awc
