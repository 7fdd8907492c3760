// snapshot_validate and snapshot_scrub against a real database and the
// in-process stores.
#include <gtest/gtest.h>

#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

using handlers::SnapshotPayload;

// Counts Get calls per digest, to prove each object is read once.
class CountingStore : public store::ObjectStore {
 public:
  explicit CountingStore(store::ObjectStore& inner) : inner_(inner) {}
  const char* scheme() const override { return inner_.scheme(); }
  Status Get(const store::ObjectKey& key,
             const store::ChunkSink& sink) override {
    ++reads_[key.digest];
    return inner_.Get(key, sink);
  }
  Result<uint64_t> Head(const store::ObjectKey& key) override {
    return inner_.Head(key);
  }
  Status Put(const store::ObjectKey& key, std::string_view data) override {
    return inner_.Put(key, data);
  }
  Status PutFile(const store::ObjectKey& key,
                 const std::string& path) override {
    return inner_.PutFile(key, path);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<store::ObjectKey>& keys) override {
    return inner_.DeleteMany(keys);
  }
  Status List(const std::string& tenant, const ListFn& each) override {
    return inner_.List(tenant, each);
  }
  Result<std::string> ReadMarker() override { return inner_.ReadMarker(); }
  Status WriteMarker(std::string_view content) override {
    return inner_.WriteMarker(content);
  }
  std::map<std::string, int> reads_;

 private:
  store::ObjectStore& inner_;
};

class HandlerTest : public ::testing::Test {
 protected:
  HandlerTest()
      : store_(store::NewMemoryStore()),
        counting_(*store_),
        cas_(db_, counting_, "t1") {
    db_.Migrate();
    ctx_ = std::make_unique<TestContext>(db_, counting_);
  }

  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  std::string Failure(int64_t id, const char* key) {
    return db_.Scalar("SELECT failure->>'" + std::string(key) +
                          "' FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  queue::Outcome Validate(int64_t id) {
    return handlers::ValidateSnapshot(*ctx_, SnapshotPayload{id});
  }
  queue::Outcome Scrub(int64_t id) {
    return handlers::ScrubSnapshot(*ctx_, SnapshotPayload{id});
  }
  void ExpectFailedWith(int64_t id, const char* code,
                        const std::string& digest) {
    queue::Outcome o = Validate(id);
    EXPECT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
    EXPECT_EQ(ResultField(o, "verdict"), "failed");
    EXPECT_EQ(ResultField(o, "code"), code);
    EXPECT_EQ(SnapState(id), "FAILED");
    EXPECT_EQ(Failure(id, "code"), code);
    EXPECT_EQ(Failure(id, "digest"), digest);
    EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.snapshot_objects WHERE "
                      "snapshot_id = $1",
                      {std::to_string(id)}),
              0);
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CountingStore counting_;
  CasFixture cas_;
  std::unique_ptr<TestContext> ctx_;
};

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

TEST_F(HandlerTest, CleanScrubKeepsReadyAndAudits) {
  std::string root = cas_.Tree(30, "clean");
  int64_t id = cas_.Snapshot(root);
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  queue::Outcome o = Scrub(id);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "clean");
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(db_.Scalar("SELECT scrubbed_at IS NOT NULL FROM awc.snapshots "
                       "WHERE id = $1",
                       {std::to_string(id)}),
            "t");
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' || '/' || (data->>'objects') "
                       "FROM awc.audit_events WHERE event = 'snapshot.scrub' "
                       "AND subject = $1",
                       {"snapshot/" + std::to_string(id)}),
            "clean/" + ResultField(o, "objects"));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins"), 0);
}

TEST_F(HandlerTest, DecayedSnapshotDegradesAndPinsItsClosure) {
  std::string a = cas_.Blob("aaaa"), b = cas_.Blob("bbbb"),
              c = cas_.Blob("cccc");
  std::string root =
      cas_.Manifest({cas_.E("a", a), cas_.E("b", b), cas_.E("c", c)});
  int64_t id = cas_.Snapshot(root);
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  cas_.PutRaw(a, "aaaX");  // bit rot
  auto key = store::MakeKey("t1", c);
  ASSERT_TRUE(store_->DeleteMany({*key}).ok());  // lost
  queue::Outcome o = Scrub(id);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(ResultField(o, "bad"), "2");
  EXPECT_EQ(SnapState(id), "DEGRADED");
  EXPECT_EQ(Failure(id, "code"), "decayed");
  EXPECT_EQ(
      db_.Scalar("SELECT string_agg(d, ',' ORDER BY d) FROM "
                 "jsonb_array_elements_text((SELECT failure->'bad_digests' "
                 "FROM awc.snapshots WHERE id = $1)) d",
                 {std::to_string(id)}),
      std::min(a, c) + "," + std::max(a, c));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1 "
                    "AND reason = 'degraded'",
                    {std::to_string(id)}),
            4);
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' || '/' || (data->>'bad') FROM "
                       "awc.audit_events WHERE event = 'snapshot.scrub'"),
            "degraded/2");
}

TEST_F(HandlerTest, ScrubSkipsWhatIsNotReady) {
  std::string root = cas_.Manifest({cas_.E("f", cas_.Blob("x"))});
  for (const char* state : {"VALIDATING", "FAILED", "DEGRADED", "RELEASED"}) {
    int64_t id = cas_.Snapshot(root, state);
    queue::Outcome o = Scrub(id);
    EXPECT_EQ(ResultField(o, "verdict"), "skipped");
    EXPECT_EQ(SnapState(id), state);
  }
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events"), 0);
}

TEST_F(HandlerTest, ScrubOfReadyWithoutClosureRowsWalksFromTheRoot) {
  std::string a = cas_.Blob("aaaa");
  std::string root = cas_.Manifest({cas_.E("a", a)});
  int64_t id = cas_.Snapshot(root, "READY");
  cas_.PutRaw(a, "aaab");
  queue::Outcome o = Scrub(id);
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(SnapState(id), "DEGRADED");
}

}  // namespace
}  // namespace awc::testing
