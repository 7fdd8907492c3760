// Inventory reconciliation against a real database and a file:// store:
// orphans registered for GC (and then deleted by it), missing and resized
// objects degrading every snapshot that reaches them, keys that are not
// objects' reported and left alone, a run resumed after a crash with the
// counts of an uninterrupted one, a run held elsewhere, and rows younger
// than the run or taken by GC meanwhile never judged missing
// (docs/store.md, "Reconciliation").
#include "reconcile/reconcile.h"

#include <gtest/gtest.h>
#include <sys/time.h>
#include <utime.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "cas/manifest.h"
#include "gc/sweep_testing.h"
#include "handlers/snapshot_validate.h"
#include "store/file_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kGrace = 3600;

class ReconcileTest : public ::testing::Test {
 protected:
  ReconcileTest() {
    auto st = store::NewFileStore(dir_.path());
    EXPECT_TRUE(st.ok()) << st.status().message();
    store_ = std::move(*st);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    db_.Migrate();
    conn_ = db_.Connect("awc-test-reconcile");
  }

  std::string PathOf(const std::string& digest) {
    return dir_.path() + "/" + store::RelativeKey({"t1", digest});
  }
  // Sets the file's mtime `secs` into the past, as the store's clock.
  void AgeFile(const std::string& path, int64_t secs) {
    struct utimbuf t;
    t.actime = t.modtime = time(nullptr) - secs;
    ASSERT_EQ(utime(path.c_str(), &t), 0) << path;
  }
  // An object in the store that the inventory does not know.
  std::string Orphan(const std::string& bytes, int64_t age_secs) {
    std::string digest = cas::DigestOf(bytes);
    EXPECT_TRUE(store_->Put(*store::MakeKey("t1", digest), bytes).ok());
    AgeFile(PathOf(digest), age_secs);
    return digest;
  }
  bool InStore(const std::string& digest) {
    return store_->Head(*store::MakeKey("t1", digest)).ok();
  }
  std::string Row(const std::string& digest, const char* column) {
    return db_.Scalar(
        std::string("SELECT ") + column + " FROM awc.objects WHERE digest = $1",
        {digest});
  }
  std::string State(int64_t snapshot) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snapshot)});
  }
  int64_t Ready(const std::string& root) {
    int64_t id = cas_->Snapshot(root);
    TestContext ctx(db_, *store_);
    EXPECT_EQ(ResultField(handlers::ValidateSnapshot(
                              ctx, handlers::SnapshotPayload{id}),
                          "verdict"),
              "ready");
    return id;
  }

  reconcile::ReconcileOptions Options(const std::string& holder = "test") {
    reconcile::ReconcileOptions o;
    o.grace_secs = kGrace;
    o.holder = holder;
    return o;
  }
  Result<reconcile::ReconcileReport> Reconcile(
      const reconcile::ReconcileOptions& o,
      const std::function<Status()>& checkpoint = nullptr) {
    return reconcile::RunReconcile(*conn_, *store_, "t1", o, checkpoint);
  }

  TestDatabase db_;
  TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CasFixture> cas_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_F(ReconcileTest, OldOrphansAreRegisteredAndGcDeletesThemYoungOnesWait) {
  std::string kept = cas_->Blob("registered by its producer");
  std::string old1 = Orphan("uploaded, never registered", 2 * kGrace);
  std::string old2 = Orphan("another crashed upload", 3 * kGrace);
  std::string young = Orphan("an upload still being registered", 60);
  auto r = Reconcile(Options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->resumed);
  EXPECT_EQ(r->listed, 4);
  EXPECT_EQ(r->objects, 4);
  EXPECT_EQ(r->orphans, 2);
  EXPECT_EQ(
      r->orphan_bytes,
      static_cast<int64_t>(std::string("uploaded, never registered").size() +
                           std::string("another crashed upload").size()));
  EXPECT_EQ(r->young_orphans, 1);
  EXPECT_EQ(r->missing, 0);
  // Registered as last written by the store: old enough for GC at once.
  EXPECT_EQ(Row(old1, "state"), "LIVE");
  EXPECT_EQ(db_.Int("SELECT (extract(epoch FROM now() - last_seen_at))::int8 "
                    "/ 60 FROM awc.objects WHERE digest = $1",
                    {old2}),
            3 * kGrace / 60);
  EXPECT_EQ(Row(young, "state"), "");
  // Reconciliation deletes nothing; GC's next epoch does, by its rules.
  EXPECT_TRUE(InStore(old1) && InStore(old2) && InStore(young));
  gc::SweepOptions so;
  so.grace_secs = kGrace;
  so.holder = "gc";
  auto swept = gc::RunSweep(*conn_, *store_, "t1", so, nullptr);
  ASSERT_TRUE(swept.ok()) << swept.status().message();
  EXPECT_EQ(swept->deleted, 2);
  EXPECT_FALSE(InStore(old1));
  EXPECT_FALSE(InStore(old2));
  EXPECT_TRUE(InStore(young));
  EXPECT_TRUE(InStore(kept));
  // The run is closed, audited once, and a new one starts afresh.
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.reconcile_runs WHERE id = $1",
                       {std::to_string(r->run_id)}),
            "COMPLETED");
  EXPECT_EQ(db_.Scalar("SELECT data->>'orphans' FROM awc.audit_events WHERE "
                       "event = 'store.reconcile'"),
            "2");
  auto again = Reconcile(Options());
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->run_id, r->run_id);
  EXPECT_EQ(again->orphans, 0);
  EXPECT_EQ(again->young_orphans, 1);
}

TEST_F(ReconcileTest, MissingAndResizedObjectsDegradeWhatReachesThem) {
  std::string lost = cas_->Blob("lost from the store");
  std::string shrunk = cas_->Blob("truncated on the disk");
  std::string fine = cas_->Blob("fine");
  std::string garbage = cas_->Blob("unreferenced, and lost too");
  std::string dir = cas_->Manifest({cas_->E("lost", lost)});
  int64_t a = Ready(
      cas_->Manifest({CasFixture::Entry{"d", dir, true, cas_->SizeOf(dir)},
                      cas_->E("fine", fine)}));
  int64_t b = Ready(cas_->Manifest({cas_->E("shrunk", shrunk)}));
  int64_t c = Ready(cas_->Manifest({cas_->E("fine", fine)}));
  cas_->AgeAll(60);  // the rows are older than the run
  fs::remove(PathOf(lost));
  fs::remove(PathOf(garbage));
  std::ofstream(PathOf(shrunk), std::ios::trunc) << "trunc";

  auto r = Reconcile(Options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->missing, 2);
  EXPECT_EQ(r->wrong_size, 1);
  EXPECT_EQ(r->degraded, 2);
  EXPECT_EQ(r->orphans, 0);
  EXPECT_EQ(State(a), "DEGRADED");
  EXPECT_EQ(State(b), "DEGRADED");
  EXPECT_EQ(State(c), "READY");
  EXPECT_EQ(db_.Scalar("SELECT failure->>'found_by_reconcile' FROM "
                       "awc.snapshots WHERE id = $1",
                       {std::to_string(a)}),
            std::to_string(r->run_id));
  EXPECT_EQ(db_.Scalar("SELECT failure->'bad_digests'->>0 FROM awc.snapshots "
                       "WHERE id = $1",
                       {std::to_string(a)}),
            lost);
  // Damaged, up to the roots; pinned, as a scrub's degradation pins.
  EXPECT_NE(Row(lost, "damaged_at"), "NULL");
  EXPECT_NE(Row(dir, "damaged_at"), "NULL");
  EXPECT_EQ(Row(fine, "damaged_at"), "NULL");
  EXPECT_GT(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1",
                    {std::to_string(a)}),
            0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'snapshot.scrub' AND data->>'verdict' = 'degraded'"),
            2);
}

TEST_F(ReconcileTest, KeysThatAreNotObjectsAreReportedAndLeftAlone) {
  cas_->Blob("an object");
  std::string base = dir_.path() + "/t1/sha256/";
  fs::create_directories(base + "ab");
  std::ofstream(base + "ab/.tmp-12-34-crashed") << "half";
  std::ofstream(dir_.path() + "/t1/notes.txt") << "someone's notes";
  auto r = Reconcile(Options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->objects, 1);
  EXPECT_EQ(r->other_keys, 2);
  EXPECT_EQ(
      r->other_examples,
      (std::vector<std::string>{"notes.txt", "sha256/ab/.tmp-12-34-crashed"}));
  EXPECT_TRUE(fs::exists(base + "ab/.tmp-12-34-crashed"));
  EXPECT_TRUE(fs::exists(dir_.path() + "/t1/notes.txt"));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 1);
}

// A run that dies half way is resumed after the last digest it recorded,
// and ends with the counts an uninterrupted run gives.
TEST_F(ReconcileTest, ACrashedRunResumesWhereItRecordedItsProgress) {
  for (int i = 0; i < 30; ++i) {
    if (i % 3 == 0) {
      Orphan("orphan " + std::to_string(i), 2 * kGrace);
    } else {
      std::string d = cas_->Blob("object " + std::to_string(i));
      if (i % 5 == 0) fs::remove(PathOf(d));
    }
  }
  cas_->AgeAll(60);
  reconcile::ReconcileOptions o = Options("first");
  o.flush_every = 4;
  o.lease_secs = 1;
  int flushes = 0;
  auto crashed = Reconcile(o, [&] {
    return ++flushes == 3 ? Status::Internal("crash") : Status::OK();
  });
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.reconcile_runs"), "RUNNING");
  EXPECT_NE(db_.Scalar("SELECT cursor FROM awc.reconcile_runs"), "NULL");
  int64_t orphans_before = db_.Int("SELECT orphans FROM awc.reconcile_runs");
  EXPECT_GT(orphans_before, 0);
  EXPECT_LT(orphans_before, 10);

  // Another job, once the crashed one's hold expired.
  db_.Exec("UPDATE awc.reconcile_runs SET expires_at = now() - interval '1s'");
  auto resumed = Reconcile(Options("second"));
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_TRUE(resumed->resumed);
  EXPECT_EQ(resumed->listed, 26);  // 4 of 30 lost from the store
  EXPECT_EQ(resumed->objects, 26);
  EXPECT_EQ(resumed->orphans, 10);
  EXPECT_EQ(resumed->missing, 4);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE state = 'LIVE'"),
            30);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.reconcile_runs"), 1);
}

TEST_F(ReconcileTest, ARunHeldByAnotherJobIsLeftToIt) {
  cas_->Blob("x");
  db_.Exec(
      "INSERT INTO awc.reconcile_runs (tenant_id, holder, expires_at) VALUES "
      "('t1', 'job_7/lease_1', now() + interval '5 minutes')");
  auto r = Reconcile(Options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->held_elsewhere);
  EXPECT_EQ(r->holder, "job_7/lease_1");
  EXPECT_EQ(db_.Int("SELECT listed FROM awc.reconcile_runs"), 0);
}

TEST_F(ReconcileTest, AnUnknownTenantIsNotFound) {
  auto r =
      reconcile::RunReconcile(*conn_, *store_, "nobody", Options(), nullptr);
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
}

// Nothing the run could not have seen is judged: a row registered after
// the run began (its object uploaded after the listing passed it), and a
// row GC marked DELETING after the listing passed it.
TEST_F(ReconcileTest, RowsYoungerThanTheRunOrTakenByGcAreNotMissing) {
  std::vector<std::string> digests;
  for (int i = 0; i < 12; ++i) {
    digests.push_back(cas_->Blob("early " + std::to_string(i)));
  }
  cas_->AgeAll(60);
  std::sort(digests.begin(), digests.end());
  // GC takes one during the run, after the run read its row (the first
  // page) and before the listing reached it: marked DELETING, then deleted.
  // The row registered meanwhile is read in a later page.
  reconcile::ReconcileOptions o = Options();
  o.flush_every = 2;
  o.page = 4;
  bool interfered = false;
  auto r = Reconcile(o, [&] {
    if (interfered) return Status::OK();
    interfered = true;
    db_.Exec("UPDATE awc.objects SET state = 'DELETING' WHERE digest = $1",
             {digests[3]});
    fs::remove(PathOf(digests[3]));
    // A producer registers a row whose object comes later (or never).
    db_.Exec(
        "INSERT INTO awc.objects (tenant_id, digest, size) VALUES ('t1', $1, "
        "5)",
        {"sha256:" + std::string(64, 'f')});
    return Status::OK();
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(interfered);
  EXPECT_EQ(r->missing, 0);
  EXPECT_EQ(r->degraded, 0);
}

}  // namespace
}  // namespace awc::testing
