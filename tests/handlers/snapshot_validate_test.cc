// snapshot_validate against a real database and the in-process stores:
// verdicts, limits, skipped states, objects being deleted.
#include <gtest/gtest.h>

#include "tests/handlers/snapshot_handler_fixture.h"

namespace awc::testing {
namespace {

TEST_F(HandlerTest, GoodTreeBecomesReadyWithItsClosure) {
  std::string a = cas_.Blob("alpha"), b = cas_.Blob("bravo!"),
              empty = cas_.Blob("");
  std::string sub = cas_.Manifest({cas_.E("b", b), cas_.E("empty", empty)});
  auto sub_entry = cas_.E("sub", sub);
  sub_entry.manifest = true;
  std::string root = cas_.Manifest({cas_.E("a", a), sub_entry});
  int64_t id = cas_.Snapshot(root);
  queue::Outcome o = Validate(id);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "ready");
  EXPECT_EQ(ResultField(o, "objects"), "5");
  EXPECT_EQ(SnapState(id), "READY");
  uint64_t bytes = 5 + 6 + 0 + cas_.SizeOf(sub) + cas_.SizeOf(root);
  EXPECT_EQ(db_.Scalar("SELECT object_count || '/' || byte_count || '/' || "
                       "(validated_at IS NOT NULL) FROM awc.snapshots WHERE id "
                       "= $1",
                       {std::to_string(id)}),
            "5/" + std::to_string(bytes) + "/true");
  EXPECT_EQ(
      db_.Scalar("SELECT string_agg(digest, ',' ORDER BY digest) FROM "
                 "awc.snapshot_objects WHERE snapshot_id = $1",
                 {std::to_string(id)}),
      db_.Scalar(
          "SELECT string_agg(d, ',' ORDER BY d) FROM unnest($1::text[]) d",
          {db::ArrayLiteral({a, b, empty, sub, root})}));
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' FROM awc.audit_events WHERE "
                       "event = 'snapshot.validate' AND subject = $1",
                       {"snapshot/" + std::to_string(id)}),
            "ready");
  EXPECT_GE(ctx_->checkpoints(), 1);
}

TEST_F(HandlerTest, SharedSubtreesAreVisitedOnce) {
  std::string shared_blob = cas_.Blob("shared");
  std::string shared_dir = cas_.Manifest({cas_.E("x", shared_blob)});
  std::vector<CasFixture::Entry> entries;
  for (int i = 0; i < 5; ++i) {
    auto e = cas_.E("dir" + std::to_string(i), shared_dir);
    e.manifest = true;
    entries.push_back(e);
    entries.push_back(cas_.E("copy" + std::to_string(i), shared_blob));
  }
  std::string root = cas_.Manifest(entries);
  int64_t id = cas_.Snapshot(root);
  counting_.reads_.clear();
  queue::Outcome o = Validate(id);
  EXPECT_EQ(ResultField(o, "verdict"), "ready");
  EXPECT_EQ(ResultField(o, "objects"), "3");
  EXPECT_EQ(counting_.reads_.size(), 3u);
  for (const auto& [digest, n] : counting_.reads_) {
    EXPECT_EQ(n, 1) << digest;
  }
}

TEST_F(HandlerTest, MissingObjectFails) {
  std::string ghost = cas::DigestOf("never stored");
  CasFixture::Entry e{"ghost", ghost, false, 12};
  std::string root = cas_.Manifest({e});
  ExpectFailedWith(cas_.Snapshot(root), "missing_object", ghost);
}

TEST_F(HandlerTest, FlippedByteFails) {
  std::string good = cas_.Blob("important data");
  cas_.PutRaw(good, "important dat4");
  std::string root = cas_.Manifest({cas_.E("f", good)});
  ExpectFailedWith(cas_.Snapshot(root), "digest_mismatch", good);
}

TEST_F(HandlerTest, WrongSizeFails) {
  std::string blob = cas_.Blob("twelve bytes");
  CasFixture::Entry e{"f", blob, false, 13};
  std::string root = cas_.Manifest({e});
  ExpectFailedWith(cas_.Snapshot(root), "size_mismatch", blob);
}

TEST_F(HandlerTest, MalformedManifestsFail) {
  std::string blob = cas_.Blob("x");
  std::string d = blob;
  const std::vector<std::string> bad = {
      "{not json",
      R"({"format":"awc-manifest/2","entries":[]})",
      R"({"format":"awc-manifest/1","entries":[{"name":"b","kind":"blob","digest":")" +
          d + R"(","size":1},{"name":"a","kind":"blob","digest":")" + d +
          R"(","size":1}]})",
      R"({"format":"awc-manifest/1","entries":[{"name":"a","kind":"blob","digest":")" +
          d + R"(","size":1},{"name":"a","kind":"blob","digest":")" + d +
          R"(","size":1}]})",
      R"({"format":"awc-manifest/1","entries":[{"name":"a","kind":"blob","digest":"sha256:XYZ","size":1}]})",
  };
  for (const std::string& json : bad) {
    std::string root = cas_.RawObject(json);
    SCOPED_TRACE(json);
    ExpectFailedWith(cas_.Snapshot(root), "malformed_manifest", root);
  }
  // A malformed manifest below the root names that manifest.
  std::string inner = cas_.RawObject(R"({"format":"awc-manifest/1"})");
  CasFixture::Entry e{"sub", inner, true, cas_.SizeOf(inner)};
  std::string root = cas_.Manifest({e});
  ExpectFailedWith(cas_.Snapshot(root), "malformed_manifest", inner);
}

TEST_F(HandlerTest, DepthLimitFails) {
  ctx_->mutable_options().closure.max_depth = 3;
  std::string d = cas_.Manifest({cas_.E("f", cas_.Blob("leaf"))});
  std::vector<std::string> chain = {d};
  for (int i = 0; i < 4; ++i) {
    CasFixture::Entry e{"n", chain.back(), true, cas_.SizeOf(chain.back())};
    chain.push_back(cas_.Manifest({e}));
  }
  // chain[4] is the root (depth 0); chain[0] sits at depth 4 > 3.
  ExpectFailedWith(cas_.Snapshot(chain[4]), "depth_limit", chain[0]);
  // Depth 3 exactly is fine.
  int64_t ok = cas_.Snapshot(chain[3]);
  EXPECT_EQ(ResultField(Validate(ok), "verdict"), "ready");
}

TEST_F(HandlerTest, TerminalSnapshotsAreSkipped) {
  std::string root = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  for (const char* state : {"READY", "FAILED", "DEGRADED", "RELEASED"}) {
    int64_t id = cas_.Snapshot(root, state);
    queue::Outcome o = Validate(id);
    EXPECT_EQ(ResultField(o, "verdict"), "skipped");
    EXPECT_EQ(ResultField(o, "state"), state);
    EXPECT_EQ(SnapState(id), state);
  }
  queue::Outcome missing = Validate(999999);
  EXPECT_EQ(missing.kind, queue::Outcome::Kind::kFail);
}

TEST_F(HandlerTest, ObjectBeingDeletedByGcIsRetried) {
  std::string blob = cas_.Blob("x");
  std::string root = cas_.Manifest({cas_.E("f", blob)});
  db_.Exec("UPDATE awc.objects SET state = 'DELETING' WHERE digest = $1",
           {blob});
  int64_t id = cas_.Snapshot(root);
  queue::Outcome o = Validate(id);
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kRetry);
  EXPECT_EQ(SnapState(id), "VALIDATING");
}

}  // namespace
}  // namespace awc::testing
