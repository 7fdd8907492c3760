#include <utility>

#include "cas/closure_test_fixture.h"

namespace awc::cas {
namespace {

TEST_F(ClosureTest, FlatTreeWithEmptyAndMultiChunkBlobs) {
  ManifestEntry a = Blob("a", "alpha"), e = Blob("empty", "");
  ManifestEntry z = Blob("z", std::string(200000, 'z'));
  std::string root_bytes = ManifestBytes({a, e, z});
  std::string root = Put(root_bytes);
  ClosureReport r = MustWalk(root);
  EXPECT_EQ(r.verdict, Verdict::kOk);
  EXPECT_TRUE(r.digest.empty());
  ASSERT_EQ(r.objects.size(), 4u);
  ClosureObject top = Find(r, root);
  EXPECT_EQ(top.size, root_bytes.size());
  EXPECT_TRUE(top.is_manifest);
  for (const ManifestEntry& want : {a, e, z}) {
    ClosureObject got = Find(r, want.digest);
    EXPECT_EQ(got.size, want.size);
    EXPECT_FALSE(got.is_manifest);
  }
  EXPECT_EQ(r.bytes, root_bytes.size() + 5 + 0 + 200000);
  EXPECT_EQ(r.reads, 4u);
}

TEST_F(ClosureTest, NestedTreeIsWalkedBreadthFirst) {
  ManifestEntry x = Blob("x.cc", "int x;"), main = Blob("main.cc", "main");
  ManifestEntry lib = Dir("lib", {x});
  ManifestEntry src = Dir("src", {lib, main});
  ManifestEntry docs = Dir("docs", {});
  ManifestEntry readme = Blob("README", "hi\n");
  std::string root = Root({readme, src, docs});
  ClosureReport r = MustWalk(root);
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  // Read one depth after the other, each depth in the order its entries
  // were met (manifests list entries by name).
  EXPECT_EQ(probe_.order(), (std::vector<std::string>{
                                root, readme.digest, docs.digest, src.digest,
                                lib.digest, main.digest, x.digest}));
  EXPECT_EQ(r.objects.size(), 7u);
  EXPECT_EQ(r.reads, 7u);
}

TEST_F(ClosureTest, EmptyRootManifest) {
  ClosureReport r = MustWalk(Root({}));
  EXPECT_EQ(r.verdict, Verdict::kOk);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.bytes, ManifestBytes({}).size());
}

TEST_F(ClosureTest, SharedSubtreesAndRepeatedBlobsAreReadOnce) {
  ManifestEntry same = Blob("copy", "same");
  ManifestEntry shared = Dir("s", {Blob("x", "xx"), Blob("y", "yy")});
  ManifestEntry d1 = Dir("d1", {shared, Named(same, "c1"), Named(same, "c2")});
  ManifestEntry d2 = Dir("d2", {Named(shared, "t"), same});
  ClosureReport r = MustWalk(Root({d1, d2, Named(same, "again")}));
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  EXPECT_EQ(r.objects.size(), 7u);
  EXPECT_EQ(r.reads, 7u);
  EXPECT_EQ(probe_.all_gets().size(), 7u);
  for (const auto& [digest, n] : probe_.all_gets()) EXPECT_EQ(n, 1) << digest;
}

TEST_F(ClosureTest, MissingObjects) {
  ManifestEntry gone{"gone", Kind::kBlob, DigestOf("gone"), 4};
  ExpectVerdict(Root({Blob("a", "a"), gone}), Verdict::kMissingObject,
                gone.digest);
  ManifestEntry gone_dir{"d", Kind::kManifest, DigestOf("{}"), 2};
  ExpectVerdict(Root({gone_dir}), Verdict::kMissingObject, gone_dir.digest);
  ExpectVerdict(DigestOf("no root"), Verdict::kMissingObject,
                DigestOf("no root"));
}

// A bad read says what a repair must restore: the object and the size its
// parent declared (none for the root). A problem of the entries is not one.
TEST_F(ClosureTest, ABadReadCarriesTheDeclaredSize) {
  ManifestEntry gone{"gone", Kind::kBlob, DigestOf("gone"), 4};
  ClosureReport r = MustWalk(Root({Blob("a", "a"), gone}));
  EXPECT_TRUE(r.read_bad);
  EXPECT_EQ(r.declared_size, std::optional<uint64_t>(4));
  ClosureReport root = MustWalk(DigestOf("no root"));
  EXPECT_TRUE(root.read_bad);
  EXPECT_EQ(root.declared_size, std::nullopt);
  ManifestEntry one = Blob("x", "same bytes");
  ManifestEntry other = Named(one, "y");
  other.size = 3;  // the same digest declared with another size
  ClosureReport twice = MustWalk(Root({one, other}));
  EXPECT_EQ(twice.verdict, Verdict::kSizeMismatch);
  EXPECT_FALSE(twice.read_bad);
}

TEST_F(ClosureTest, FlippedBytes) {
  ManifestEntry b = Blob("b", "hello world");
  PutAs(b.digest, "hello worle");
  ExpectVerdict(Root({b}), Verdict::kDigestMismatch, b.digest);

  ManifestEntry d = Dir("d", {Blob("c", "c")});
  std::string bytes = ManifestBytes({Blob("c", "c")});
  bytes[bytes.size() - 4] ^= 1;  // the size's digit
  PutAs(d.digest, bytes);
  ExpectVerdict(Root({d}), Verdict::kDigestMismatch, d.digest);

  std::string root = Root({Blob("r", "r")});
  PutAs(root, ManifestBytes({Blob("r", "R")}));
  ExpectVerdict(root, Verdict::kDigestMismatch, root);
}

TEST_F(ClosureTest, WrongSizes) {
  ManifestEntry b = Blob("b", "abc");
  for (uint64_t declared : {0, 2, 4, 1 << 20}) {
    ManifestEntry wrong = b;
    wrong.size = declared;
    ExpectVerdict(Root({wrong}), Verdict::kSizeMismatch, b.digest);
  }
  // Manifests too.
  ManifestEntry d = Dir("d", {b});
  for (uint64_t declared : {uint64_t{0}, d.size - 1, d.size + 1}) {
    ManifestEntry wrong = d;
    wrong.size = declared;
    ExpectVerdict(Root({wrong}), Verdict::kSizeMismatch, d.digest);
  }
  // A corrupt object no longer than declared is a digest mismatch; one
  // longer than declared is read no further: a size mismatch.
  PutAs(d.digest, ManifestBytes({b}).substr(0, d.size - 2));
  ExpectVerdict(Root({d}), Verdict::kDigestMismatch, d.digest);
  PutAs(d.digest, ManifestBytes({b}) + "  ");
  ExpectVerdict(Root({d}), Verdict::kSizeMismatch, d.digest);
}

TEST_F(ClosureTest, OneDigestDeclaredWithTwoSizes) {
  ManifestEntry b = Blob("a", "abc");
  ManifestEntry other = Named(b, "b");
  other.size = 4;
  ExpectVerdict(Root({b, other}), Verdict::kSizeMismatch, b.digest);
  ExpectVerdict(Root({b, Dir("d", {other})}), Verdict::kSizeMismatch, b.digest);
}

TEST_F(ClosureTest, MalformedManifests) {
  const std::string good = ManifestBytes({Blob("a", "a")});
  // An entries array of one entry per name, with `tail` after "kind".
  auto doc = [](std::vector<std::string> names, const std::string& kind,
                const std::string& tail) {
    std::string out = "{\"format\":\"awc-manifest/1\",\"entries\":[";
    for (const std::string& n : names) {
      out += (out.back() == '[' ? "" : ",") + std::string("{\"name\":\"") + n +
             "\",\"kind\":\"" + kind + "\"" + tail + "}";
    }
    return out + "]}";
  };
  const std::string ok = ",\"digest\":\"" + DigestOf("a") + "\",\"size\":1";
  const std::pair<std::string, std::string> cases[] = {
      {"", "not valid JSON"},
      {"not json", "not valid JSON"},
      {good.substr(0, good.size() - 1), "not valid JSON"},
      {"[]", "not a JSON object"},
      {"{\"format\":\"awc-manifest/2\",\"entries\":[]}", "unknown format"},
      {doc({"b", "a"}, "blob", ok), "not sorted"},
      {doc({"a", "a"}, "blob", ok), "duplicate entry name"},
      {doc({"a"}, "blob", ",\"digest\":\"sha256:ab\",\"size\":1"),
       "digest is malformed"},
      {doc({"a"}, "blob", ok + ",\"mode\":1"), "keys are not exactly"},
      {doc({"a"}, "tree", ok), "kind is not"},
      {doc({"a/b"}, "blob", ok), "contains '/'"},
      {doc({"a"}, "blob", ok + ".0"), "size is not an integer"},
  };
  ASSERT_TRUE(ParseManifest(doc({"a", "b"}, "blob", ok)).ok());
  for (const auto& [bytes, rule] : cases) {
    ManifestEntry bad = RawDir("bad", bytes);
    ClosureReport r = MustWalk(Root({Blob("a", "a"), bad}));
    EXPECT_EQ(r.verdict, Verdict::kMalformedManifest) << rule;
    EXPECT_EQ(r.digest, bad.digest) << rule;
    EXPECT_NE(r.detail.find(rule), std::string::npos) << r.detail;
  }
  EXPECT_EQ(probe_.gets(DigestOf("a")), static_cast<int>(std::size(cases)));
}

TEST_F(ClosureTest, RootThatIsABlob) {
  std::string root = Put("just some text");
  ExpectVerdict(root, Verdict::kMalformedManifest, root);
  ExpectVerdict(Put(""), Verdict::kMalformedManifest, DigestOf(""));
}

TEST_F(ClosureTest, BlobAlsoNamedAsManifestIsParsed) {
  ManifestEntry leaf = Blob("leaf", "leaf");
  ManifestEntry inner = Dir("m", {leaf});
  ManifestEntry as_blob{"a", Kind::kBlob, inner.digest, inner.size};
  // Named both ways in one manifest: read once, as a manifest.
  ClosureReport r = MustWalk(Root({as_blob, Named(inner, "b")}));
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  ASSERT_EQ(r.objects.size(), 3u);
  EXPECT_TRUE(Find(r, inner.digest).is_manifest);
  EXPECT_FALSE(Find(r, leaf.digest).is_manifest);
  EXPECT_EQ(r.reads, 3u);
  // Read as a blob first, named as a manifest one level down: read again.
  r = MustWalk(Root({as_blob, Dir("d", {inner})}));
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  EXPECT_EQ(r.objects.size(), 4u);
  EXPECT_EQ(r.reads, 5u);
  EXPECT_TRUE(Find(r, inner.digest).is_manifest);
  // Content that is no manifest fails however the blob was named first.
  ManifestEntry text = Blob("t", "text");
  ManifestEntry text_dir{"u", Kind::kManifest, text.digest, text.size};
  ExpectVerdict(Root({text, text_dir}), Verdict::kMalformedManifest,
                text.digest);
  ExpectVerdict(Root({text, Dir("d", {text_dir})}), Verdict::kMalformedManifest,
                text.digest);
}

TEST_F(ClosureTest, DepthLimit) {
  std::string deepest;
  std::string root = Chain(5, &deepest);
  ClosureLimits limits;
  limits.max_depth = 5;
  EXPECT_EQ(MustWalk(root, limits).verdict, Verdict::kOk);
  limits.max_depth = 4;
  ExpectVerdict(root, Verdict::kDepthExceeded, deepest, limits);
  EXPECT_EQ(probe_.gets(deepest), 1);  // refused unread the second time
  // Blobs add no depth; the root alone is depth 0.
  limits.max_depth = 0;
  EXPECT_EQ(MustWalk(Root({Blob("a", "a")}), limits).verdict, Verdict::kOk);
  limits.max_depth = -1;
  ExpectVerdict(root, Verdict::kDepthExceeded, root, limits);
  // The default limit is 64.
  EXPECT_EQ(MustWalk(Chain(64, &deepest)).verdict, Verdict::kOk);
  root = Chain(65, &deepest);
  ExpectVerdict(root, Verdict::kDepthExceeded, deepest);
}

TEST_F(ClosureTest, ObjectLimit) {
  ManifestEntry a = Blob("a", "a"), b = Blob("b", "b"), c = Blob("c", "c");
  std::string root = Root({a, b, Named(a, "a2"), c});
  ClosureLimits limits;
  limits.max_objects = 4;
  EXPECT_EQ(MustWalk(root, limits).verdict, Verdict::kOk);
  limits.max_objects = 3;
  ExpectVerdict(root, Verdict::kTooManyObjects, c.digest, limits);
  limits.max_objects = 0;
  ExpectVerdict(root, Verdict::kTooManyObjects, root, limits);
}

TEST_F(ClosureTest, ManifestSizeLimit) {
  std::vector<ManifestEntry> many;
  for (int i = 0; i < 600; ++i) {
    many.push_back(Blob("f" + std::to_string(i), std::to_string(i)));
  }
  ManifestEntry big = Dir("big", many);  // larger than one 64 KiB chunk
  ASSERT_GT(big.size, 64u * 1024);
  std::string root = Root({big});
  ClosureLimits limits;
  limits.manifest_max_bytes = big.size;
  EXPECT_EQ(MustWalk(root, limits).verdict, Verdict::kOk);
  limits.manifest_max_bytes = big.size - 1;
  ExpectVerdict(root, Verdict::kManifestTooLarge, big.digest, limits);
  // Declared small, it is buffered only up to that size: a size mismatch.
  ManifestEntry understated = big;
  understated.size = 100;
  ExpectVerdict(Root({understated}), Verdict::kSizeMismatch, big.digest,
                limits);

  std::string big_root = Root(many);
  limits.manifest_max_bytes = ManifestBytes(many).size();
  EXPECT_EQ(MustWalk(big_root, limits).verdict, Verdict::kOk);
  --limits.manifest_max_bytes;
  ExpectVerdict(big_root, Verdict::kManifestTooLarge, big_root, limits);
}

TEST_F(ClosureTest, StoreErrorsAreStatusesNotVerdicts) {
  ManifestEntry b = Blob("b", "b");
  std::string root = Root({Blob("a", "a"), b});
  probe_.Fail(b.digest, Status::Transient("503 SlowDown"));
  Result<ClosureReport> r = Walk(root);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsTransient()) << r.status().ToString();
  probe_.Fail(b.digest, Status::IoError("disk on fire"));
  r = Walk(root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  probe_.ClearFaults();
  EXPECT_EQ(MustWalk(root).verdict, Verdict::kOk);
}

TEST_F(ClosureTest, AnObjectTheStoreCallsCorruptIsAVerdict) {
  // E.g. a directory where file:// expects the object's file: a fact about
  // the data, not an error to retry.
  ManifestEntry a = Blob("a", "a"), b = Blob("b", "b");
  probe_.Fail(b.digest, Status::Corruption("object " + b.digest +
                                           " is not a regular file (a "
                                           "directory)"));
  ClosureReport r = MustWalk(Root({a, b}));
  EXPECT_EQ(r.verdict, Verdict::kInvalidObject);
  EXPECT_EQ(r.digest, b.digest);
  EXPECT_EQ(r.detail,
            "object " + b.digest + " is not a regular file (a directory)");
  Result<std::vector<BadObject>> bad = Verify({{a.digest, 1}, {b.digest, 1}});
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  ASSERT_EQ(bad->size(), 1u);
  EXPECT_EQ((*bad)[0].digest, b.digest);
  EXPECT_EQ((*bad)[0].why, Verdict::kInvalidObject);
}

TEST_F(ClosureTest, AReadStopsOnceAnObjectIsLongerThanDeclared) {
  // An object that never ends is read no further than its declared size
  // and the chunk that crosses it: a size mismatch.
  ManifestEntry endless{"zero", Kind::kBlob, DigestOf("five!"), 5};
  probe_.Endless(endless.digest);
  ClosureReport r = MustWalk(Root({Blob("a", "a"), endless}));
  EXPECT_EQ(r.verdict, Verdict::kSizeMismatch);
  EXPECT_EQ(r.digest, endless.digest);
  EXPECT_EQ(r.detail, "object is longer than the 5 bytes its entry declares");
  EXPECT_LE(probe_.endless_delivered(), 64u * 1024);
  // Scrub's reads too.
  Result<std::vector<BadObject>> bad = Verify({{endless.digest, 5}});
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  ASSERT_EQ(bad->size(), 1u);
  EXPECT_EQ((*bad)[0].why, Verdict::kSizeMismatch);
  EXPECT_LE(probe_.endless_delivered(), 2u * 64 * 1024);
}

TEST_F(ClosureTest, FirstProblemInRequestOrderWins) {
  probe_.set_reverse(true);
  ManifestEntry a = Blob("a", "a"), b = Blob("b", "b"), c = Blob("c", "c");
  PutAs(c.digest, "C");
  ManifestEntry gone{"d", Kind::kBlob, DigestOf("d"), 1};
  ExpectVerdict(Root({a, b, c, gone}), Verdict::kDigestMismatch, c.digest);
  probe_.Fail(a.digest, Status::Transient("timeout"));
  Result<ClosureReport> r = Walk(Root({a, b, c, gone}));
  EXPECT_TRUE(!r.ok() && r.status().IsTransient());
  probe_.Fail(b.digest, Status::NotFound("gone"));
  ExpectVerdict(Root({Named(b, "0"), a, c}), Verdict::kMissingObject, b.digest);
}

TEST_F(ClosureTest, CheckpointBetweenBatchesAndItsErrorAborts) {
  std::vector<ManifestEntry> blobs;
  for (int i = 0; i < 100; ++i) {
    blobs.push_back(Blob("f" + std::to_string(i), "blob " + std::to_string(i)));
  }
  std::string root = Root(blobs);
  EXPECT_EQ(MustWalk(root).verdict, Verdict::kOk);
  EXPECT_EQ(probe_.batches().size(), 8u);  // the root, then 7 of <= 16
  EXPECT_EQ(checkpoints_, 7);
  checkpoints_ = 0;
  fail_checkpoint_at_ = 3;
  Result<ClosureReport> r = Walk(root);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsFailedPrecondition());
  EXPECT_EQ(probe_.batches().size(), 8u + 3u);
}

TEST_F(ClosureTest, CheckpointRunsInsideTheReadOfALargeObject) {
  // One 5 MiB blob: one checkpoint between the root's batch and the blob's,
  // and one after every MiB of the blob while it streams.
  std::string big(5 * 1024 * 1024 + 10, 'z');
  std::string root = Root({Blob("big", big)});
  EXPECT_EQ(MustWalk(root).verdict, Verdict::kOk);
  EXPECT_EQ(checkpoints_, 1 + 5);
  // A failing checkpoint stops the read then and there.
  checkpoints_ = 0;
  fail_checkpoint_at_ = 3;
  Result<ClosureReport> r = Walk(root);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsFailedPrecondition()) << r.status().ToString();
  EXPECT_EQ(checkpoints_, 3);
  // Scrub's reads too.
  checkpoints_ = 0;
  fail_checkpoint_at_ = -1;
  Result<std::vector<BadObject>> bad =
      VerifyObjects(probe_, kTenant, {{DigestOf(big), big.size()}},
                    [this] { return Checkpoint(); });
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_TRUE(bad->empty());
  EXPECT_EQ(checkpoints_, 5);
}

TEST_F(ClosureTest, MalformedIdsAreInvalidArguments) {
  std::string root = Root({});
  EXPECT_TRUE(WalkClosure(probe_, "T1", root, {}, nullptr)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(WalkClosure(probe_, kTenant, "sha256:abc", {}, nullptr)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(WalkClosure(probe_, kTenant, root, {}, nullptr).ok());
}

TEST(ClosureVerdictTest, Codes) {
  EXPECT_STREQ(VerdictCode(Verdict::kOk), "ok");
  EXPECT_STREQ(VerdictCode(Verdict::kMissingObject), "missing_object");
  EXPECT_STREQ(VerdictCode(Verdict::kDigestMismatch), "digest_mismatch");
  EXPECT_STREQ(VerdictCode(Verdict::kSizeMismatch), "size_mismatch");
  EXPECT_STREQ(VerdictCode(Verdict::kMalformedManifest), "malformed_manifest");
  EXPECT_STREQ(VerdictCode(Verdict::kManifestTooLarge), "manifest_too_large");
  EXPECT_STREQ(VerdictCode(Verdict::kDepthExceeded), "depth_limit");
  EXPECT_STREQ(VerdictCode(Verdict::kTooManyObjects), "object_limit");
  EXPECT_STREQ(VerdictCode(Verdict::kInvalidObject), "invalid_object");
}

// (store parallelism, reads per batch): 16 per slot, at least 16, at most
// 1024.
class ClosureBatchTest
    : public ClosureTest,
      public ::testing::WithParamInterface<std::pair<int, size_t>> {};

TEST_P(ClosureBatchTest, LargeTreeStaysWithinTheBatchBound) {
  probe_.set_parallelism(GetParam().first);
  std::vector<ManifestEntry> dirs;
  for (int d = 0; d < 100; ++d) {
    std::vector<ManifestEntry> blobs;
    for (int i = 0; i < 199; ++i) {
      blobs.push_back(Blob("f" + std::to_string(i),
                           std::to_string(d) + "/" + std::to_string(i)));
    }
    dirs.push_back(Dir("d" + std::to_string(d), std::move(blobs)));
  }
  ClosureReport r = MustWalk(Root(dirs));
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.detail;
  EXPECT_EQ(r.objects.size(), 20001u);
  EXPECT_EQ(r.reads, 20001u);
  size_t bound = GetParam().second, total = 0;
  for (size_t n : probe_.batches()) {
    EXPECT_LE(n, bound);
    total += n;
  }
  EXPECT_EQ(total, 20001u);
  EXPECT_EQ(*std::max_element(probe_.batches().begin(), probe_.batches().end()),
            bound);
}

INSTANTIATE_TEST_SUITE_P(ClosureParallelism, ClosureBatchTest,
                         ::testing::Values(std::pair<int, size_t>{1, 16},
                                           std::pair<int, size_t>{8, 128},
                                           std::pair<int, size_t>{1000, 1024}));

}  // namespace
}  // namespace awc::cas
