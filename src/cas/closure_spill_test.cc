// The closure walk past its memory budget: what it keeps in spill files,
// and that the verdicts and closures stay those of the model.
#include <random>

#include "cas/closure_test_fixture.h"
#include "store/store_conformance.h"

namespace awc::cas {
namespace {

using store::storetest::ScopedTempDir;

// Random DAGs: blobs and manifests shared across levels, compared with
// the set of digests reachable in the model that made them.
TEST_F(ClosureTest, RandomDagsMatchTheirModel) {
  std::mt19937 rng(7);
  for (int round = 0; round < 6; ++round) {
    std::vector<ManifestEntry> pool;  // what a manifest may name
    std::map<std::string, std::set<std::string>> reach;  // digest -> closure
    for (int i = 0; i < 300; ++i) {
      ManifestEntry b = Blob("b", "blob " + std::to_string(round) + "/" +
                                      std::to_string(rng() % 200));
      pool.push_back(b);
      reach[b.digest] = {b.digest};
    }
    for (int level = 0; level < 4; ++level) {
      std::vector<ManifestEntry> made;
      for (int m = 0; m < 12; ++m) {
        std::vector<ManifestEntry> entries;
        std::set<std::string> closure;
        size_t n = 1 + rng() % 40;
        for (size_t k = 0; k < n; ++k) {
          const ManifestEntry& e = pool[rng() % pool.size()];
          entries.push_back(Named(e, "e" + std::to_string(k)));
          closure.insert(reach[e.digest].begin(), reach[e.digest].end());
        }
        ManifestEntry d = Dir("d", std::move(entries));
        closure.insert(d.digest);
        reach[d.digest] = closure;
        made.push_back(d);
      }
      pool.insert(pool.end(), made.begin(), made.end());
    }
    std::vector<ManifestEntry> top;
    std::set<std::string> want;
    for (int k = 0; k < 5; ++k) {
      const ManifestEntry& e = pool[pool.size() - 1 - rng() % 24];
      top.push_back(Named(e, "t" + std::to_string(k)));
      want.insert(reach[e.digest].begin(), reach[e.digest].end());
    }
    std::string root = Root(top);
    want.insert(root);
    ClosureReport r = MustWalk(root);  // also with a budget of a few records
    ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
    std::vector<std::string> got;
    for (const auto& [digest, size, manifest] : Objects(r)) {
      got.push_back(digest);
    }
    EXPECT_EQ(got, std::vector<std::string>(want.begin(), want.end()));
    EXPECT_EQ(r.reads, want.size());  // each object read once
  }
}

TEST_F(ClosureTest, SpillFilesLiveAsLongAsTheReport) {
  ScopedTempDir tmp;
  std::vector<ManifestEntry> dirs;
  for (int d = 0; d < 20; ++d) {
    std::vector<ManifestEntry> blobs;
    for (int i = 0; i < 50; ++i) {
      blobs.push_back(Blob("f" + std::to_string(i),
                           std::to_string(d) + "." + std::to_string(i)));
    }
    dirs.push_back(Dir("d" + std::to_string(d), std::move(blobs)));
  }
  std::string root = Root(dirs);
  ClosureLimits limits;
  limits.spill.dir = tmp.path();
  limits.spill.memory_bytes = 4096;
  {
    ClosureReport r = MustWalk(root, limits);
    ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
    EXPECT_EQ(r.objects.size(), 1021u);
    // The closure, the manifests read and their entries, read in batches.
    EXPECT_EQ(tmp.Entries(), 3u);
    EXPECT_EQ(r.manifests_read.size(), 21u);
    EXPECT_EQ(r.edges.size(), 1020u);
    size_t seen = 0, batches = 0;
    ASSERT_TRUE(r.objects
                    .ForEachBatch(100,
                                  [&](const std::vector<ClosureObject>& b) {
                                    EXPECT_LE(b.size(), 100u);
                                    seen += b.size();
                                    ++batches;
                                    return Status::OK();
                                  })
                    .ok());
    EXPECT_EQ(seen, 1021u);
    EXPECT_EQ(batches, 11u);
    ClosureReport copy = r;  // copies share the file
    r = ClosureReport{};
    EXPECT_EQ(tmp.Entries(), 3u);
    EXPECT_EQ(copy.objects.size(), 1021u);
    // An error from the callback ends the reading.
    Status s = copy.objects.ForEachBatch(
        10, [](const auto&) { return Status::Internal("stop"); });
    EXPECT_EQ(s.message(), "stop");
  }
  EXPECT_EQ(tmp.Entries(), 0u);
  // A failed walk leaves nothing behind.
  probe_.Fail(dirs[7].digest, Status::NotFound("gone"));
  ExpectVerdict(root, Verdict::kMissingObject, dirs[7].digest, limits);
  EXPECT_EQ(tmp.Entries(), 0u);
  // Spill files that cannot be made are a Status error, not a verdict.
  limits.spill.dir = tmp.path() + "/missing";
  probe_.ClearFaults();
  Result<ClosureReport> r = Walk(root, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
}

// Problems of entries are found when a depth's reads are done; the first in
// order still wins over a bad object met later at that depth, and loses to
// one met earlier.
TEST_F(ClosureTest, EntryProblemsAndBadReadsOfOneDepthKeepTheirOrder) {
  ManifestEntry b = Blob("b", "abc");
  ManifestEntry other = Named(b, "b");
  other.size = 4;
  ManifestEntry m1 = Dir("m1", {b}), m2 = Dir("m2", {other});
  ManifestEntry gone{"zz-gone", Kind::kBlob, DigestOf("gone"), 4};
  ExpectVerdict(Root({m1, m2, gone}), Verdict::kSizeMismatch, b.digest);
  ExpectVerdict(Root({m1, m2, Named(gone, "a-gone")}), Verdict::kMissingObject,
                gone.digest);
  // A store error after the problem: the verdict, as an entry-by-entry walk
  // stops at the problem before it reads on.
  probe_.Fail(gone.digest, Status::Transient("timeout"));
  ExpectVerdict(Root({m1, m2, gone}), Verdict::kSizeMismatch, b.digest);
  // The object limit counts new digests in the order they are met.
  ClosureLimits limits;
  limits.max_objects = 4;  // root, m1, m2, b: the limit is not reached
  probe_.ClearFaults();
  ManifestEntry c = Blob("c", "c");
  ManifestEntry m3 = Dir("m3", {c});
  EXPECT_EQ(MustWalk(Root({m1, Named(m1, "m1b")}), limits).verdict,
            Verdict::kOk);
  ExpectVerdict(Root({m1, m3}), Verdict::kTooManyObjects, c.digest, limits);
}

}  // namespace
}  // namespace awc::cas
