// The read step the walk and scrub share: batch sizes, where a read stops,
// and the order of the verdicts.
#include "cas/object_read.h"

#include "cas/closure_test_fixture.h"

namespace awc::cas {
namespace {

class ObjectReadTest : public ClosureTest {
 protected:
  // Reads `digests` in one GetMany; `declared[i]` < 0 means no declared
  // size (the root), `manifest` marks which are kept as manifests.
  std::vector<ObjectRead> ReadAll(const std::vector<std::string>& digests,
                                  const std::vector<int64_t>& declared,
                                  const std::vector<bool>& manifest,
                                  uint64_t manifest_max) {
    std::vector<ObjectRead> reads(digests.size());
    for (size_t i = 0; i < digests.size(); ++i) {
      reads[i].has_declared = declared[i] >= 0;
      reads[i].declared =
          static_cast<uint64_t>(std::max<int64_t>(0, declared[i]));
      reads[i].manifest = manifest[i];
    }
    ReadObjects(probe_, kTenant, digests, reads, manifest_max,
                [this] { return Checkpoint(); });
    return reads;
  }

  Verdict Check(ObjectRead& r, const std::string& digest, std::string* detail,
                uint64_t manifest_max = 1024) {
    EXPECT_TRUE(IsJudged(r)) << r.status.ToString();
    return CheckRead(r, digest, manifest_max, detail);
  }
};

TEST_F(ObjectReadTest, BatchesGrowWithTheStoresParallelismWithinBounds) {
  for (auto [parallelism, batch] : std::vector<std::pair<int, size_t>>{
           {0, 16}, {1, 16}, {4, 64}, {16, 256}, {64, 1024}, {1000, 1024}}) {
    probe_.set_parallelism(parallelism);
    EXPECT_EQ(ReadBatchSize(probe_), batch) << parallelism;
  }
}

TEST_F(ObjectReadTest, AGoodObjectKeepsOnlyAManifestsBytes) {
  std::string blob = Put("a blob"), manifest = Put("manifest bytes");
  std::vector<ObjectRead> reads =
      ReadAll({blob, manifest, blob}, {6, 14, -1}, {false, true, false}, 1024);
  std::string detail;
  for (size_t i = 0; i < reads.size(); ++i) {
    EXPECT_EQ(Check(reads[i], i == 1 ? manifest : blob, &detail), Verdict::kOk)
        << i << ": " << detail;
  }
  EXPECT_EQ(reads[0].buffer, "");
  EXPECT_EQ(reads[1].buffer, "manifest bytes");
  EXPECT_EQ(reads[2].length, 6u);
}

TEST_F(ObjectReadTest, EachProblemHasItsVerdictAndSaysWhy) {
  std::string good = Put("twelve bytes");
  std::string wrong = PutAs(DigestOf("other"), "not other");
  std::string big = Put(std::string(2048, 'm'));
  std::vector<ObjectRead> reads = ReadAll(
      {DigestOf("gone"), good, good, wrong, big, wrong}, {5, 5, 20, 9, 2048, 3},
      {false, false, false, false, true, false}, 1024);
  std::string detail;
  EXPECT_EQ(Check(reads[0], DigestOf("gone"), &detail),
            Verdict::kMissingObject);
  EXPECT_EQ(detail, "object is missing from the store");
  // Longer than declared: the read stopped, and no digest is computed.
  EXPECT_EQ(Check(reads[1], good, &detail), Verdict::kSizeMismatch);
  EXPECT_TRUE(reads[1].longer);
  EXPECT_EQ(detail, "object is longer than the 5 bytes its entry declares");
  // Shorter than declared, with the right content.
  EXPECT_EQ(Check(reads[2], good, &detail), Verdict::kSizeMismatch);
  EXPECT_EQ(detail, "object is 12 bytes, its entry declares 20");
  EXPECT_EQ(Check(reads[3], wrong, &detail), Verdict::kDigestMismatch);
  EXPECT_EQ(Check(reads[4], big, &detail), Verdict::kManifestTooLarge);
  EXPECT_EQ(detail, "manifest is larger than 1024 bytes");
  EXPECT_TRUE(reads[4].buffer.size() <= 1024);
  // Longer than declared wins over the wrong content: it was not all read.
  EXPECT_EQ(Check(reads[5], wrong, &detail), Verdict::kSizeMismatch);
}

TEST_F(ObjectReadTest, AnEndlessObjectStopsAtItsDeclaredSize) {
  std::string endless = DigestOf("endless");
  probe_.Endless(endless);
  std::vector<ObjectRead> reads = ReadAll({endless}, {100}, {false}, 0);
  std::string detail;
  EXPECT_EQ(Check(reads[0], endless, &detail), Verdict::kSizeMismatch);
  EXPECT_LE(reads[0].length, 64u * 1024);
}

TEST_F(ObjectReadTest, StoreAndCheckpointErrorsAreNotVerdicts) {
  std::string slow = Put(std::string(3 * 1024 * 1024, 'x'));
  std::string flaky = Put("flaky");
  probe_.Fail(flaky, Status::Transient("503 from the store"));
  // The checkpoint runs after each MiB of one object; the second one fails.
  fail_checkpoint_at_ = 2;
  std::vector<ObjectRead> reads =
      ReadAll({flaky, slow}, {5, 3 * 1024 * 1024}, {false, false}, 0);
  EXPECT_FALSE(IsJudged(reads[0]));
  EXPECT_TRUE(reads[0].status.IsTransient());
  EXPECT_FALSE(IsJudged(reads[1]));
  EXPECT_EQ(reads[1].status.message(), "lease lost");
  EXPECT_EQ(checkpoints_, 2);
}

}  // namespace
}  // namespace awc::cas
