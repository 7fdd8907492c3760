// Snapshots that share content, against a real database and the in-process
// stores: validation reads only what is new, references follow releases,
// a scrub's damage reaches every snapshot that shares it, a scheduled
// cycle of scrubs, or plain scrubs requested together, read a shared
// object once, and the trust a walk took is checked again
// when it commits (docs/store.md, "Shared content").
#include <gtest/gtest.h>

#include "catalog/dag.h"
#include "catalog/snapshots.h"
#include "tests/handlers/snapshot_handler_fixture.h"

namespace awc::testing {
namespace {

class SharedContentTest : public HandlerTest {
 protected:
  CasFixture::Entry Dir(const std::string& name, const std::string& digest) {
    CasFixture::Entry e = cas_.E(name, digest);
    e.manifest = true;
    return e;
  }
  // `dirs` directories of `files` blobs each; directory `changed` gets
  // its first file's content from `salt` (the rest is the same whatever
  // the salt).
  std::string Tree(int dirs, int files, int changed, const std::string& salt) {
    std::vector<CasFixture::Entry> top;
    for (int d = 0; d < dirs; ++d) {
      std::vector<CasFixture::Entry> entries;
      for (int f = 0; f < files; ++f) {
        std::string body = "d" + std::to_string(d) + "/f" + std::to_string(f);
        if (d == changed && f == 0) body += "@" + salt;
        entries.push_back(cas_.E("f" + std::to_string(f), cas_.Blob(body)));
      }
      top.push_back(Dir("d" + std::to_string(d), cas_.Manifest(entries)));
    }
    return cas_.Manifest(top);
  }
  int64_t Refs(const std::string& digest) { return cas_.CountedRefs(digest); }
  int64_t ClosureRows(int64_t id) {
    return db_.Int(
        "SELECT count(*) FROM awc.snapshot_objects WHERE snapshot_id = $1",
        {std::to_string(id)});
  }
  int TotalReads() {
    int n = 0;
    for (const auto& [digest, reads] : counting_.reads_) n += reads;
    return n;
  }
  void Release(int64_t id) {
    auto conn = db_.Connect();
    Result<std::optional<catalog::Snapshot>> snap =
        catalog::LoadSnapshot(*conn, id);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    Result<bool> released =
        catalog::ReleaseSnapshot(*conn, **snap, "test", false);
    ASSERT_TRUE(released.ok() && *released) << released.status().message();
    ASSERT_TRUE(catalog::DropStrayRootRefsNow(*conn, "t1").ok());
  }
};

TEST_F(SharedContentTest, ALaterSnapshotReadsOnlyWhatChanged) {
  int64_t first = cas_.Snapshot(Tree(10, 20, 3, "v1"));
  queue::Outcome a = Validate(first);
  ASSERT_EQ(ResultField(a, "verdict"), "ready") << a.error;
  EXPECT_EQ(ResultField(a, "read"), "211");  // root, 10 dirs, 200 blobs
  EXPECT_EQ(ResultField(a, "trusted"), "0");

  counting_.reads_.clear();
  int64_t second = cas_.Snapshot(Tree(10, 20, 3, "v2"));
  queue::Outcome b = Validate(second);
  ASSERT_EQ(ResultField(b, "verdict"), "ready") << b.error;
  // The root, the changed directory and its new blob; the other nine
  // directories are taken on trust, and one blob of the changed directory
  // is new while 19 are already referenced.
  EXPECT_EQ(ResultField(b, "read"), "3");
  EXPECT_EQ(TotalReads(), 3);
  EXPECT_EQ(ResultField(b, "trusted"), "28");
  // Counted as a full walk counts them.
  EXPECT_EQ(ResultField(b, "objects"), "211");
  // The changed file keeps its length, so every manifest keeps its size.
  EXPECT_EQ(ResultField(b, "bytes"), ResultField(a, "bytes"));
  EXPECT_EQ(ClosureRows(second), 211);
  EXPECT_EQ(ClosureRows(first), 211);
  // Bookkeeping grows with what is unique: the entries of 11 manifests for
  // the first, of the new root and directory for the second.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.object_edges"),
            (10 + 200) + (10 + 20));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.legacy_closures"), 0);
}

TEST_F(SharedContentTest, ReleasingDropsOnlyWhatNoLiveSnapshotReaches) {
  std::string shared_blob = cas_.Blob("shared");
  std::string shared = cas_.Manifest({cas_.E("s", shared_blob)});
  std::string only_a = cas_.Blob("only a");
  std::string only_b = cas_.Blob("only b");
  std::string root_a =
      cas_.Manifest({Dir("shared", shared), cas_.E("a", only_a)});
  std::string root_b =
      cas_.Manifest({Dir("shared", shared), cas_.E("b", only_b)});
  int64_t a = cas_.Snapshot(root_a), b = cas_.Snapshot(root_b);
  ASSERT_EQ(ResultField(Validate(a), "verdict"), "ready");
  ASSERT_EQ(ResultField(Validate(b), "verdict"), "ready");
  EXPECT_EQ(Refs(shared), 2);
  EXPECT_EQ(Refs(shared_blob), 1);  // from one manifest, however shared
  EXPECT_EQ(Refs(root_a), 1);

  Release(a);
  EXPECT_EQ(Refs(root_a), 0);
  EXPECT_EQ(Refs(only_a), 0);
  EXPECT_EQ(Refs(shared), 1);
  EXPECT_EQ(Refs(shared_blob), 1);
  EXPECT_EQ(ClosureRows(a), 0);
  EXPECT_EQ(ClosureRows(b), 4);
  Release(b);
  for (const std::string& d :
       {root_a, root_b, shared, shared_blob, only_a, only_b}) {
    EXPECT_EQ(Refs(d), 0) << d;
  }
}

TEST_F(SharedContentTest, SnapshotsReleasedBehindTheWorkersBackAreReclaimed) {
  // A control plane may release (or delete) a snapshot with plain SQL: its
  // root keeps its reference until the catalog next takes the DAG lock.
  std::string blob_a = cas_.Blob("a"), blob_b = cas_.Blob("b");
  int64_t a = cas_.Snapshot(cas_.Manifest({cas_.E("a", blob_a)}));
  int64_t b = cas_.Snapshot(cas_.Manifest({cas_.E("b", blob_b)}));
  ASSERT_EQ(ResultField(Validate(a), "verdict"), "ready");
  ASSERT_EQ(ResultField(Validate(b), "verdict"), "ready");
  db_.Exec("UPDATE awc.snapshots SET state = 'RELEASED' WHERE id = $1",
           {std::to_string(a)});
  db_.Exec("DELETE FROM awc.snapshots WHERE id = $1", {std::to_string(b)});
  EXPECT_EQ(Refs(blob_a), 1);
  EXPECT_EQ(Refs(blob_b), 1);
  int64_t c = cas_.Snapshot(cas_.Manifest({cas_.E("c", cas_.Blob("c"))}));
  ASSERT_EQ(ResultField(Validate(c), "verdict"), "ready");
  // A release, a workspace's expiry and every GC epoch take the strays;
  // here a release of the third.
  Release(c);
  EXPECT_EQ(Refs(blob_a), 0);
  EXPECT_EQ(Refs(blob_b), 0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.dropped_roots"), 0);
}

TEST_F(SharedContentTest, DamageDegradesEverySnapshotThatReachesIt) {
  std::string bad = cas_.Blob("will rot");
  std::string dir =
      cas_.Manifest({cas_.E("x", bad), cas_.E("y", cas_.Blob("y"))});
  std::string clean = cas_.Manifest({cas_.E("z", cas_.Blob("z"))});
  int64_t a = cas_.Snapshot(
      cas_.Manifest({Dir("d", dir), cas_.E("a", cas_.Blob("a"))}));
  int64_t b = cas_.Snapshot(cas_.Manifest({Dir("moved", dir)}));
  int64_t c = cas_.Snapshot(cas_.Manifest({Dir("other", clean)}));
  for (int64_t id : {a, b, c}) {
    ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  }
  cas_.PutRaw(bad, "rotten!!");

  queue::Outcome o = Scrub(a);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(SnapState(a), "DEGRADED");
  EXPECT_EQ(SnapState(b), "DEGRADED");  // shares the bad object
  EXPECT_EQ(SnapState(c), "READY");
  EXPECT_EQ(Failure(b, "found_by"), std::to_string(a));
  EXPECT_EQ(db_.Scalar("SELECT failure->'bad_digests'->>0 FROM awc.snapshots "
                       "WHERE id = $1",
                       {std::to_string(b)}),
            bad);
  // Both closures pinned, as a scrub of each would have pinned them.
  EXPECT_EQ(db_.Int("SELECT count(DISTINCT snapshot_id) FROM awc.gc_pins"), 2);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1 "
                    "AND digest = $2",
                    {std::to_string(b), bad}),
            1);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'snapshot.scrub' AND subject = $1 AND data->>'found_by' "
                    "= $2",
                    {"snapshot/" + std::to_string(b), std::to_string(a)}),
            1);

  // A new snapshot reusing the damaged directory is not trusted with it: it
  // reads it, and fails on the bad object.
  int64_t d = cas_.Snapshot(cas_.Manifest({Dir("again", dir)}));
  ExpectFailedWith(d, "digest_mismatch", bad);
  // Restored (by hand, from a copy): a validation that reads it good takes
  // the damage off, and the subtree is trusted again afterwards.
  cas_.PutRaw(bad, "will rot");
  int64_t e = cas_.Snapshot(cas_.Manifest({Dir("restored", dir)}));
  ASSERT_EQ(ResultField(Validate(e), "verdict"), "ready");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE damaged_at IS NOT "
                    "NULL AND digest IN ($1, $2)",
                    {dir, bad}),
            0);
  int64_t f = cas_.Snapshot(
      cas_.Manifest({Dir("trusted", dir), cas_.E("n", cas_.Blob("n"))}));
  queue::Outcome trusted = Validate(f);
  ASSERT_EQ(ResultField(trusted, "verdict"), "ready");
  EXPECT_EQ(ResultField(trusted, "trusted"), "1");
}

TEST_F(SharedContentTest, AScheduledCycleReadsASharedObjectOnce) {
  std::vector<int64_t> ids;
  for (const char* salt : {"1", "2", "3", "4"}) {
    ids.push_back(cas_.Snapshot(Tree(5, 10, 0, salt)));
    ASSERT_EQ(ResultField(Validate(ids.back()), "verdict"), "ready");
  }
  // Unique: 4 roots, 4 versions of directory 0 and of its first blob, the
  // 4 unchanged directories, their 40 blobs and the 9 others of directory
  // 0. Each closure: a root, 5 directories, 50 blobs.
  const int unique = 4 + 4 + 4 + 4 + 40 + 9;
  const int closure = 56;
  cas_.CountFileEntries();
  ASSERT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE refs > 0"), unique);
  // The last verification was long ago.
  db_.Exec("UPDATE awc.objects SET verified_at = now() - interval '2 days'");

  counting_.reads_.clear();
  int64_t read = 0, fresh = 0;
  for (int64_t id : ids) {
    queue::Outcome o = Scrub(id, /*reverify_after_secs=*/86400);
    ASSERT_EQ(ResultField(o, "verdict"), "clean") << o.error;
    EXPECT_EQ(ResultField(o, "objects"), std::to_string(closure));
    read += std::stoll(ResultField(o, "read"));
    fresh += std::stoll(ResultField(o, "fresh"));
  }
  EXPECT_EQ(read, unique);
  EXPECT_EQ(TotalReads(), unique);
  for (const auto& [digest, reads] : counting_.reads_) {
    EXPECT_EQ(reads, 1) << digest;
  }
  EXPECT_EQ(read + fresh, 4 * closure);
  // Asked by hand (no reverify window), a scrub reads its whole closure.
  queue::Outcome full = Scrub(ids[0]);
  EXPECT_EQ(ResultField(full, "read"), std::to_string(closure));
  EXPECT_EQ(ResultField(full, "fresh"), "0");
}

// Plain scrubs, as a control plane asks for them ({"snapshot_id": N}):
// each promises that every object it reaches was verified after it was
// requested, so scrubs requested together share their reads, and one
// requested after them reads everything again.
TEST_F(SharedContentTest, PlainScrubsRequestedTogetherReadASharedObjectOnce) {
  std::vector<int64_t> ids;
  for (const char* salt : {"1", "2", "3", "4"}) {
    ids.push_back(cas_.Snapshot(Tree(5, 10, 0, salt)));
    ASSERT_EQ(ResultField(Validate(ids.back()), "verdict"), "ready");
  }
  const int unique = 4 + 4 + 4 + 4 + 40 + 9;  // as in the test above
  const int closure = 56;
  cas_.CountFileEntries();
  // Verified by the validations, but before the scrubs were requested.
  auto request = [&](int64_t snapshot) {
    queue::Job job;
    job.id = db_.Int(
        "INSERT INTO awc.jobs (kind, payload) VALUES "
        "('snapshot_scrub', jsonb_build_object('snapshot_id', "
        "$1::bigint)) RETURNING id",
        {std::to_string(snapshot)});
    job.attempts = 1;
    job.max_attempts = 5;
    return job;
  };
  std::vector<queue::Job> wave;
  for (int64_t id : ids) wave.push_back(request(id));

  counting_.reads_.clear();
  int64_t read = 0, fresh = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    ctx_->set_job(wave[i]);
    queue::Outcome o = Scrub(ids[i]);
    ASSERT_EQ(ResultField(o, "verdict"), "clean") << o.error;
    EXPECT_EQ(ResultField(o, "objects"), std::to_string(closure));
    read += std::stoll(ResultField(o, "read"));
    fresh += std::stoll(ResultField(o, "fresh"));
  }
  EXPECT_EQ(read, unique);
  EXPECT_EQ(TotalReads(), unique);
  for (const auto& [digest, reads] : counting_.reads_) {
    EXPECT_EQ(reads, 1) << digest;
  }
  EXPECT_EQ(read + fresh, 4 * static_cast<int64_t>(closure));

  // Requested after every object was read: nothing is fresh to it.
  ctx_->set_job(request(ids[0]));
  queue::Outcome later = Scrub(ids[0]);
  EXPECT_EQ(ResultField(later, "read"), std::to_string(closure));
  EXPECT_EQ(ResultField(later, "fresh"), "0");
  // A scrub with no job row to date it (run by hand, in-process) reads
  // everything too.
  ctx_->NextJob();
  EXPECT_EQ(ResultField(Scrub(ids[1]), "fresh"), "0");
}

TEST_F(SharedContentTest, TrustWithdrawnDuringTheWalkIsCaughtAtCommit) {
  std::string kept = cas_.Manifest({cas_.E("k", cas_.Blob("kept"))});
  int64_t first = cas_.Snapshot(
      cas_.Manifest({Dir("kept", kept), cas_.E("a", cas_.Blob("a"))}));
  ASSERT_EQ(ResultField(Validate(first), "verdict"), "ready");
  std::string fresh = cas_.Manifest({cas_.E("n", cas_.Blob("new"))});
  int64_t second =
      cas_.Snapshot(cas_.Manifest({Dir("kept", kept), Dir("fresh", fresh)}));
  // The walk trusts `kept` (referenced by the first snapshot); while it
  // reads the rest, the first snapshot is released and `kept` is left
  // unreferenced, free for GC to take.
  // (The walk's first checkpoint comes before its second read, after it
  // was told which of the root's entries it may trust.)
  bool released = false;
  const int before = ctx_->checkpoints();
  ctx_->on_checkpoint = [&](int n) {
    if (n == before + 1) {
      Release(first);
      released = true;
    }
  };
  queue::Outcome o = Validate(second);
  ctx_->on_checkpoint = nullptr;
  ASSERT_TRUE(released);
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kRetry);
  EXPECT_NE(o.error.find("no longer referenced"), std::string::npos) << o.error;
  EXPECT_EQ(SnapState(second), "VALIDATING");
  EXPECT_EQ(Refs(kept), 0);
  // The retry reads the subtree it can no longer trust.
  queue::Outcome again = Validate(second);
  ASSERT_EQ(ResultField(again, "verdict"), "ready") << again.error;
  EXPECT_EQ(ResultField(again, "trusted"), "0");
  EXPECT_EQ(Refs(kept), 1);
}

}  // namespace
}  // namespace awc::testing
