#include "cas/spill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <random>
#include <vector>

#include "store/store_conformance.h"
#include "testing/fault_env.h"

namespace awc::cas {
namespace {

using store::storetest::ScopedTempDir;

struct Rec {
  uint64_t key = 0;
  uint64_t payload = 0;
};
struct ByKey {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
};

template <typename Reader>
std::vector<Rec> Drain(Reader& r) {
  std::vector<Rec> out;
  Rec x;
  for (;;) {
    Result<bool> more = r.Next(&x);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) return out;
    out.push_back(x);
  }
}

class SpillTest : public ::testing::Test {
 protected:
  SpillOptions Options(size_t memory_bytes) {
    SpillOptions o;
    o.dir = tmp_.path();
    o.memory_bytes = memory_bytes;
    return o;
  }
  ScopedTempDir tmp_;
};

TEST_F(SpillTest, SpoolInMemoryThenInAFileReadTwiceAndRemoved) {
  for (size_t budget : {size_t{1} << 20, sizeof(Rec) * 10}) {
    SpillFiles files(Options(budget));
    std::vector<Rec> want;
    {
      Spool<Rec> spool(&files, budget);
      for (uint64_t i = 0; i < 5000; ++i) {
        want.push_back({i * 7, i});
        ASSERT_TRUE(spool.Append(want.back()).ok());
      }
      ASSERT_TRUE(spool.Finish().ok());
      EXPECT_EQ(spool.size(), 5000u);
      EXPECT_EQ(spool.in_memory(), budget > 5000 * sizeof(Rec));
      EXPECT_EQ(tmp_.Entries(), spool.in_memory() ? 0u : 1u);
      auto a = spool.NewReader();
      auto b = spool.NewReader();
      ASSERT_TRUE(a.ok() && b.ok());
      std::vector<Rec> got_a = Drain(**a), got_b = Drain(**b);
      ASSERT_EQ(got_a.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got_a[i].key, want[i].key);
        EXPECT_EQ(got_a[i].payload, want[i].payload);
      }
      EXPECT_EQ(got_b.size(), want.size());
    }
    EXPECT_EQ(tmp_.Entries(), 0u) << "budget " << budget;
  }
}

TEST_F(SpillTest, SorterSortsInMemoryAndThroughMergedRuns) {
  // 20000 records, 100 per run: 200 runs, merged 32 at a time in rounds.
  for (size_t budget : {size_t{1} << 20, sizeof(Rec) * 100}) {
    SpillFiles files(Options(budget));
    std::mt19937_64 rng(42);
    std::vector<Rec> want;
    {
      Sorter<Rec, ByKey> sorter(&files, budget);
      for (uint64_t i = 0; i < 20000; ++i) {
        want.push_back({rng() % 5000, i});  // duplicates too
        ASSERT_TRUE(sorter.Add(want.back()).ok());
      }
      auto reader = sorter.Finish();
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<Rec> got = Drain(**reader);
      std::stable_sort(want.begin(), want.end(), ByKey());
      ASSERT_EQ(got.size(), want.size());
      EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), ByKey()));
      // The same multiset of records.
      auto full = [](const Rec& a, const Rec& b) {
        return a.key != b.key ? a.key < b.key : a.payload < b.payload;
      };
      std::sort(got.begin(), got.end(), full);
      std::sort(want.begin(), want.end(), full);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].key, want[i].key);
        ASSERT_EQ(got[i].payload, want[i].payload);
      }
      // Far fewer files than runs are left while reading: rounds remove
      // the runs they merged.
      constexpr size_t kFanIn = Sorter<Rec, ByKey>::kMaxFanIn;
      EXPECT_LE(tmp_.Entries(), kFanIn);
    }
    EXPECT_EQ(tmp_.Entries(), 0u) << "budget " << budget;
  }
}

TEST_F(SpillTest, EmptySorterAndSpool) {
  SpillFiles files(Options(64));
  Sorter<Rec, ByKey> sorter(&files, 64);
  auto reader = sorter.Finish();
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE(Drain(**reader).empty());
  Spool<Rec> spool(&files, 64);
  ASSERT_TRUE(spool.Finish().ok());
  auto r = spool.NewReader();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(Drain(**r).empty());
}

TEST_F(SpillTest, EnvErrorsComeBackAndLeaveNoFiles) {
  FaultEnv env(Env::Default());
  SpillOptions o = Options(sizeof(Rec) * 4);
  o.env = &env;
  {
    SpillFiles files(o);
    Spool<Rec> spool(&files, o.memory_bytes);
    env.FailFrom(FaultEnv::Op::kAppend, 1, ENOSPC);
    Status s;
    for (uint64_t i = 0; i < 10000 && s.ok(); ++i) s = spool.Append({i, i});
    if (s.ok()) s = spool.Finish();
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("disk full"), std::string::npos) << s.message();
  }
  EXPECT_EQ(tmp_.Entries(), 0u);
  env.Reset();
  {
    SpillFiles files(o);
    Sorter<Rec, ByKey> sorter(&files, o.memory_bytes);
    env.FailFrom(FaultEnv::Op::kNewWritableFile, 1, EIO);
    Status s;
    for (uint64_t i = 0; i < 100 && s.ok(); ++i) s = sorter.Add({i, i});
    EXPECT_FALSE(s.ok());
  }
  env.Reset();
  {
    SpillFiles files(o);
    Sorter<Rec, ByKey> sorter(&files, o.memory_bytes);
    for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(sorter.Add({i, i}).ok());
    env.FailFrom(FaultEnv::Op::kRead, 1, EIO);
    auto reader = sorter.Finish();
    EXPECT_FALSE(reader.ok());
  }
  EXPECT_EQ(tmp_.Entries(), 0u);
}

}  // namespace
}  // namespace awc::cas
