#include "cas/closure_test_fixture.h"

namespace awc::cas {
namespace {

TEST_F(ClosureTest, VerifyObjectsReportsEveryBadObject) {
  ManifestEntry good = Blob("g", "good"), flipped = Blob("f", "flip");
  PutAs(flipped.digest, "flop");
  ManifestEntry sized = Blob("s", "sized");
  std::vector<VerifyTarget> targets = {
      {good.digest, 4},  {DigestOf("gone"), 4}, {flipped.digest, 4},
      {sized.digest, 6}, {good.digest, 4},      {sized.digest, 4},
      {DigestOf(""), 0},
  };
  PutAs(DigestOf(""), "");
  Result<std::vector<BadObject>> bad = Verify(targets);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  ASSERT_EQ(bad->size(), 4u);
  EXPECT_EQ((*bad)[0].digest, DigestOf("gone"));
  EXPECT_EQ((*bad)[0].why, Verdict::kMissingObject);
  EXPECT_EQ((*bad)[1].digest, flipped.digest);
  EXPECT_EQ((*bad)[1].why, Verdict::kDigestMismatch);
  EXPECT_EQ((*bad)[2].why, Verdict::kSizeMismatch);
  EXPECT_EQ((*bad)[3].why, Verdict::kSizeMismatch);
  EXPECT_EQ((*bad)[3].digest, sized.digest);
  targets = {{good.digest, 4}, {sized.digest, 5}, {sized.digest, {}}};
  bad = Verify(targets);
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(bad->empty());
  // An unknown size checks the digest only.
  bad = Verify({{flipped.digest, std::nullopt}, {good.digest, std::nullopt}});
  ASSERT_TRUE(bad.ok());
  ASSERT_EQ(bad->size(), 1u);
  EXPECT_EQ((*bad)[0].why, Verdict::kDigestMismatch);
  EXPECT_TRUE(Verify({}).ok());
}

TEST_F(ClosureTest, VerifyObjectsBatchesCheckpointsAndErrors) {
  std::vector<VerifyTarget> targets;
  for (int i = 0; i < 100; ++i) {
    ManifestEntry b = Blob("b", "blob " + std::to_string(i));
    targets.push_back({b.digest, b.size});
  }
  Result<std::vector<BadObject>> bad = Verify(targets);
  ASSERT_TRUE(bad.ok() && bad->empty());
  EXPECT_EQ(probe_.batches(), (std::vector<size_t>{16, 16, 16, 16, 16, 16, 4}));
  EXPECT_EQ(checkpoints_, 6);
  checkpoints_ = 0;
  fail_checkpoint_at_ = 2;
  EXPECT_TRUE(Verify(targets).status().IsFailedPrecondition());
  fail_checkpoint_at_ = -1;
  probe_.Fail(targets[50].digest, Status::Transient("timeout"));
  EXPECT_TRUE(Verify(targets).status().IsTransient());
  targets.push_back({"sha256:nope", 1});
  EXPECT_TRUE(Verify(targets).status().IsInvalidArgument());
}

}  // namespace
}  // namespace awc::cas
