#include "gc/eligible_tally.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace awc::gc {
namespace {

using Object = EligibleTally::Object;

std::vector<Object> Objects(int n, int distinct_times) {
  std::vector<Object> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({(i * 7919) % distinct_times,
                   "sha256:" + std::to_string(1000000 + (i * 104729) % n),
                   static_cast<uint64_t>(i + 1)});
  }
  return out;
}

std::vector<std::string> Digests(const std::vector<Object>& objects) {
  std::vector<std::string> out;
  for (const Object& o : objects) out.push_back(o.digest);
  return out;
}

TEST(EligibleTallyTest, CountsEverythingAndKeepsTheOldestInOrder) {
  // Many objects share a touch time: the digest breaks the tie.
  std::vector<Object> all = Objects(5000, 37);
  std::vector<Object> sorted = all;
  std::sort(sorted.begin(), sorted.end(), [](const Object& a, const Object& b) {
    return std::tie(a.touched_us, a.digest) < std::tie(b.touched_us, b.digest);
  });
  sorted.resize(100);
  std::mt19937 rng(7);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(all.begin(), all.end(), rng);
    EligibleTally tally(100);
    for (const Object& o : all) tally.Offer(o);
    EXPECT_EQ(tally.count(), 5000);
    EXPECT_EQ(tally.bytes(), 5000u * 5001u / 2);
    EXPECT_EQ(Digests(tally.TakeOldest()), Digests(sorted));
  }
}

TEST(EligibleTallyTest, FewerThanItKeepsAndNoneAtAll) {
  EligibleTally few(10);
  few.Offer({5, "sha256:b", 1});
  few.Offer({5, "sha256:a", 2});
  few.Offer({1, "sha256:z", 3});
  EXPECT_EQ(few.count(), 3);
  EXPECT_EQ(Digests(few.TakeOldest()),
            (std::vector<std::string>{"sha256:z", "sha256:a", "sha256:b"}));

  EligibleTally none(0);
  none.Offer({1, "sha256:a", 9});
  EXPECT_EQ(none.count(), 1);
  EXPECT_EQ(none.bytes(), 9u);
  EXPECT_TRUE(none.TakeOldest().empty());
}

}  // namespace
}  // namespace awc::gc
