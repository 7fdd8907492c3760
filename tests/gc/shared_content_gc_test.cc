// GC over shared content, against a real database and store: a snapshot
// that reuses a subtree GC is taking apart never becomes READY with a hole,
// a validation that wins the race keeps what it references, releases free
// exactly what no live snapshot reaches, and closures recorded before the
// DAG keep protecting their snapshots across the upgrade (docs/gc.md,
// "GC safety").
#include <gtest/gtest.h>

#include "cas/manifest.h"
#include "catalog/dag.h"
#include "catalog/snapshots.h"
#include "gc/sweep_testing.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "migrate/migrator.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/counting_store.h"

namespace awc::testing {
namespace {

constexpr int64_t kGrace = 3600;
constexpr int64_t kOld = 2 * kGrace;

class SharedGcTest : public ::testing::Test {
 protected:
  SharedGcTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    db_.Migrate();
    validator_ = std::make_unique<TestContext>(db_, *store_);
    gc_conn_ = db_.Connect("awc-test-gc");
  }

  CasFixture::Entry Dir(const std::string& name, const std::string& digest) {
    CasFixture::Entry e = cas_.E(name, digest);
    e.manifest = true;
    return e;
  }
  queue::Outcome Validate(int64_t id) {
    validator_->NextJob();
    return handlers::ValidateSnapshot(*validator_,
                                      handlers::SnapshotPayload{id});
  }
  void Release(int64_t id) {
    auto conn = db_.Connect();
    auto snap = catalog::LoadSnapshot(*conn, id);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    auto released = catalog::ReleaseSnapshot(*conn, **snap, "test", false);
    ASSERT_TRUE(released.ok() && *released);
    ASSERT_TRUE(catalog::DropStrayRootRefsNow(*conn, "t1").ok());
  }
  Result<gc::SweepReport> Sweep(const gc::SweepHooks& hooks = {},
                                int batch_size = 1000) {
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.batch_size = batch_size;
    o.canary_size = 10;
    o.holder = "gc-" + std::to_string(++sweeps_);
    return gc::RunSweepWithHooks(*gc_conn_, *store_, "t1", o, nullptr, hooks);
  }
  bool InStore(const std::string& digest) {
    return store_->Head(*store::MakeKey("t1", digest)).ok();
  }
  // The invariant the issue states: no READY or DEGRADED snapshot reaches
  // an object that is not in the store.
  void ExpectNoLiveSnapshotHasAHole() {
    std::string rows = db_.Scalar(
        "SELECT string_agg(s.snapshot_id || ':' || s.digest, ',') FROM "
        "awc.snapshot_objects s JOIN awc.snapshots n ON n.id = s.snapshot_id "
        "WHERE n.state IN ('READY', 'DEGRADED')");
    if (rows == "NULL") return;
    size_t start = 0;
    while (start < rows.size()) {
      size_t comma = rows.find(',', start);
      std::string item = rows.substr(start, comma - start);
      std::string digest = item.substr(item.find(':') + 1);
      EXPECT_TRUE(InStore(digest)) << "snapshot:digest " << item;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<TestContext> validator_;
  std::unique_ptr<db::PgConn> gc_conn_;
  int sweeps_ = 0;
};

// The race, as it is written in docs/gc.md: manifest M and its child X are
// garbage; GC marks X DELETING in one batch; a producer then uploads a
// snapshot that reuses M (still LIVE), touching only the top of what it
// reuses; the validation must not make it READY, for GC goes on to delete
// X. An implementation that trusted M because it is LIVE would.
TEST_F(SharedGcTest, ReusingASubtreeGcIsDeletingNeverMakesAReadySnapshot) {
  std::string x = cas_.Blob("x, deleted first");
  std::string m = cas_.Manifest({cas_.E("x", x)});
  int64_t old = cas_.Snapshot(cas_.Manifest({Dir("m", m)}));
  ASSERT_EQ(ResultField(Validate(old), "verdict"), "ready");
  Release(old);
  cas_.AgeAll(kOld);
  cas_.Age(x, kOld + 100);  // the oldest: in the first batch alone

  int64_t reuser = 0;
  queue::Outcome during;
  gc::SweepHooks hooks;
  hooks.after_mark = [&](int64_t) {
    if (reuser != 0) return Status::OK();
    EXPECT_EQ(
        db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {x}),
        "DELETING");
    // The producer: a new root over M, and M touched in the transaction
    // that inserts the snapshot.
    std::string root = cas_.Manifest({Dir("again", m)});
    cas_.Age(m, 0);
    reuser = cas_.Snapshot(root);
    during = Validate(reuser);
    return Status::OK();
  };
  auto r = Sweep(hooks, /*batch_size=*/1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_NE(reuser, 0);
  EXPECT_EQ(during.kind, queue::Outcome::Kind::kRetry) << during.result;
  EXPECT_NE(during.error.find("being deleted"), std::string::npos)
      << during.error;
  EXPECT_FALSE(InStore(x));
  EXPECT_TRUE(InStore(m));  // touched by the producer: within the grace
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                       {std::to_string(reuser)}),
            "VALIDATING");
  // Its retry sees the hole and fails the snapshot: the producer must
  // upload X again under a new snapshot.
  queue::Outcome after = Validate(reuser);
  EXPECT_EQ(ResultField(after, "verdict"), "failed");
  EXPECT_EQ(ResultField(after, "code"), "missing_object");
  EXPECT_EQ(ResultField(after, "digest"), x);
  ExpectNoLiveSnapshotHasAHole();
}

// The same race one step later: the walk reads X while it is LIVE, and GC
// marks, deletes and removes it before the validation commits. The commit
// must not register X afresh (its row is gone, the object too): the
// producer reused M, which nothing references, touching only M, so M's
// subtree was GC's to take (docs/data-model.md, rule 4). The snapshot
// fails on its retry; it is never READY with a hole.
TEST_F(SharedGcTest, AnObjectDeletedAfterTheWalkReadItIsNeverRegisteredAgain) {
  std::string x = cas_.Blob("x, read and then deleted");
  std::string m = cas_.Manifest({cas_.E("x", x)});
  // A snapshot over M that was never validated: M's entries are not
  // recorded, so touching M protects nothing under it.
  int64_t abandoned = cas_.Snapshot(cas_.Manifest({Dir("m", m)}));
  db_.Exec("UPDATE awc.snapshots SET state = 'FAILED' WHERE id = $1",
           {std::to_string(abandoned)});
  cas_.AgeAll(kOld);
  std::string root = cas_.Manifest({Dir("again", m)});
  cas_.Age(m, 0);
  int64_t reuser = cas_.Snapshot(root);

  CountingStore reads(*store_);
  TestContext validator(db_, reads);
  Result<gc::SweepReport> swept = Status::Internal("not run");
  reads.after_get = [&](const std::string& digest) {
    if (digest == x) swept = Sweep();
  };
  validator.NextJob();
  queue::Outcome during =
      handlers::ValidateSnapshot(validator, handlers::SnapshotPayload{reuser});
  ASSERT_TRUE(swept.ok()) << swept.status().message();
  EXPECT_GE(swept->deleted, 1);
  EXPECT_FALSE(InStore(x));
  EXPECT_EQ(during.kind, queue::Outcome::Kind::kRetry) << during.result;
  EXPECT_NE(during.error.find(x), std::string::npos) << during.error;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE digest = $1", {x}),
            0);
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                       {std::to_string(reuser)}),
            "VALIDATING");
  queue::Outcome after = Validate(reuser);
  EXPECT_EQ(ResultField(after, "verdict"), "failed");
  EXPECT_EQ(ResultField(after, "code"), "missing_object");
  EXPECT_EQ(ResultField(after, "digest"), x);
  ExpectNoLiveSnapshotHasAHole();
}

// A validation and an epoch held by it must not wait for each other. An
// epoch deleted X and stopped (a crash before its canary check); X was then
// uploaded again by a producer that never registered it (an import that
// failed), and a snapshot that reuses X's parent has been VALIDATING for
// longer than the grace. Its validation reads X, which an epoch at or after
// its GC watermark deleted, so it retries; the sweep, held by that
// snapshot, must end the epoch rather than wait with it open, or the
// validation's watermark never passes it (found by the chaos suite).
TEST_F(SharedGcTest, AValidationAndTheEpochItHoldsDoNotWaitForEachOther) {
  const std::string x_bytes = "x, deleted and uploaded again";
  std::string x = cas_.Blob(x_bytes);
  std::string m = cas_.Manifest({cas_.E("x", x)});
  int64_t old = cas_.Snapshot(cas_.Manifest({Dir("m", m)}));
  ASSERT_EQ(ResultField(Validate(old), "verdict"), "ready");
  Release(old);
  cas_.AgeAll(kOld);
  cas_.Age(x, kOld + 100);  // the oldest: the canary batch, alone

  gc::SweepHooks crash_before_canary;
  crash_before_canary.before_canary_check = [](int64_t) {
    return Status::Internal("crash");
  };
  ASSERT_FALSE(Sweep(crash_before_canary, /*batch_size=*/1).ok());
  ASSERT_FALSE(InStore(x));
  ASSERT_EQ(db_.Scalar("SELECT state FROM awc.gc_epochs"), "DELETING");

  cas_.PutRaw(x, x_bytes);  // uploaded again, no row
  std::string root = cas_.Manifest({Dir("again", m)});
  cas_.Age(m, 0);
  int64_t reuser = cas_.Snapshot(root);
  db_.Exec(
      "UPDATE awc.snapshots SET created_at = now() - make_interval("
      "secs => $2) WHERE id = $1",
      {std::to_string(reuser), std::to_string(kOld)});

  queue::Outcome waiting = Validate(reuser);
  EXPECT_EQ(waiting.kind, queue::Outcome::Kind::kRetry) << waiting.result;
  EXPECT_NE(waiting.error.find(x), std::string::npos) << waiting.error;

  auto stopped = Sweep();
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_EQ(gc::VerdictName(stopped->verdict), std::string("refused"));
  EXPECT_NE(stopped->reason.find(std::to_string(reuser)), std::string::npos)
      << stopped->reason;
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.gc_epochs"), "REFUSED");

  queue::Outcome done = Validate(reuser);
  EXPECT_EQ(ResultField(done, "verdict"), "ready") << done.error;
  EXPECT_TRUE(InStore(x));
  ExpectNoLiveSnapshotHasAHole();
}

// The other order: the validation commits between GC's plan and its mark.
// X is neither touched nor re-read by anyone but the validation; its
// reference is what keeps it.
TEST_F(SharedGcTest, AValidationThatCommitsBeforeTheMarkKeepsWhatItReaches) {
  std::string x = cas_.Blob("x, kept by reference");
  std::string m = cas_.Manifest({cas_.E("x", x)});
  std::string old_root = cas_.Manifest({Dir("m", m)});
  int64_t old = cas_.Snapshot(old_root);
  ASSERT_EQ(ResultField(Validate(old), "verdict"), "ready");
  Release(old);
  cas_.AgeAll(kOld);

  int64_t reuser = 0;
  gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) {
    std::string root = cas_.Manifest({Dir("again", m)});
    cas_.Age(m, 0);
    reuser = cas_.Snapshot(root);
    EXPECT_EQ(ResultField(Validate(reuser), "verdict"), "ready");
    return Status::OK();
  };
  auto r = Sweep(hooks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->planned, 3);  // old_root, m, x
  EXPECT_EQ(r->deleted, 1);  // old_root
  EXPECT_FALSE(InStore(old_root));
  EXPECT_TRUE(InStore(m));
  EXPECT_TRUE(InStore(x));
  ExpectNoLiveSnapshotHasAHole();
  // And the next epoch, with nothing touched any more, keeps them too.
  cas_.AgeAll(kOld);
  auto again = Sweep();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->planned, 0);
  ExpectNoLiveSnapshotHasAHole();
}

// The cheaper producer rule: a producer that reuses a subtree touches only
// its top. GC keeps what lies under a manifest touched within the grace,
// so the snapshot validates though nothing references the subtree yet.
TEST_F(SharedGcTest, WhatLiesUnderAFreshlyTouchedManifestIsKept) {
  std::string x = cas_.Blob("x, under a reused top");
  std::string inner = cas_.Manifest({cas_.E("x", x)});
  std::string m = cas_.Manifest({Dir("inner", inner)});
  std::string old_root = cas_.Manifest({Dir("m", m)});
  int64_t old = cas_.Snapshot(old_root);
  ASSERT_EQ(ResultField(Validate(old), "verdict"), "ready");
  Release(old);
  cas_.AgeAll(kOld);
  // The producer: a new root over m, touching the root and m only.
  std::string root = cas_.Manifest({Dir("reused", m)});
  cas_.Age(m, 0);
  int64_t reuser = cas_.Snapshot(root);
  auto r = Sweep();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deleted, 1);  // the old root; inner and x are kept
  EXPECT_EQ(r->kept, 2);
  EXPECT_TRUE(InStore(inner));
  EXPECT_TRUE(InStore(x));
  EXPECT_EQ(ResultField(Validate(reuser), "verdict"), "ready");
  ExpectNoLiveSnapshotHasAHole();
}

TEST_F(SharedGcTest, AReleaseFreesWhatOnlyItReached) {
  std::string shared_blob = cas_.Blob("shared");
  std::string shared = cas_.Manifest({cas_.E("s", shared_blob)});
  std::string only_a = cas_.Blob("only a"), only_b = cas_.Blob("only b");
  std::string root_a =
      cas_.Manifest({Dir("shared", shared), cas_.E("a", only_a)});
  std::string root_b =
      cas_.Manifest({Dir("shared", shared), cas_.E("b", only_b)});
  int64_t a = cas_.Snapshot(root_a), b = cas_.Snapshot(root_b);
  ASSERT_EQ(ResultField(Validate(a), "verdict"), "ready");
  ASSERT_EQ(ResultField(Validate(b), "verdict"), "ready");
  Release(a);
  cas_.AgeAll(kOld);
  auto r = Sweep();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deleted, 2);
  EXPECT_FALSE(InStore(root_a));
  EXPECT_FALSE(InStore(only_a));
  for (const std::string& d : {root_b, shared, shared_blob, only_b}) {
    EXPECT_TRUE(InStore(d)) << d;
  }
  ExpectNoLiveSnapshotHasAHole();
  // The edges of a deleted manifest go with it.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.object_edges WHERE parent = "
                    "decode(substr($1, 8), 'hex')",
                    {root_a}),
            0);
  Release(b);
  cas_.AgeAll(kOld);
  auto last = Sweep();
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->deleted, 4);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.object_edges"), 0);
}

TEST_F(SharedGcTest, ASnapshotDeletedByHandFreesItsObjectsAtTheNextEpoch) {
  std::string blob = cas_.Blob("blob");
  std::string root = cas_.Manifest({cas_.E("b", blob)});
  int64_t id = cas_.Snapshot(root);
  ASSERT_EQ(ResultField(Validate(id), "verdict"), "ready");
  db_.Exec("DELETE FROM awc.snapshots WHERE id = $1", {std::to_string(id)});
  cas_.AgeAll(kOld);
  auto r = Sweep();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deleted, 2);
  EXPECT_FALSE(InStore(blob));
}

// An upgrade from the schema before the DAG: closure rows of READY,
// DEGRADED and RELEASED snapshots. Every guarantee holds across it: what a
// live snapshot reaches survives GC, what only a released one reached goes,
// and a new snapshot reusing that content reads it (nothing recorded before
// is trusted) and then holds it by reference.
TEST(SharedGcUpgradeTest, ClosuresRecordedBeforeTheDagKeepProtecting) {
  TestDatabase db;
  std::unique_ptr<store::ObjectStore> store = store::NewMemoryStore();
  {
    auto conn = db.Connect();
    std::vector<migrate::Migration> before;
    for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
      if (m.version < 14) before.push_back(m);
    }
    ASSERT_TRUE(migrate::Migrate(*conn, before).ok());
  }
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('t1')");
  // Objects written and closures recorded as the old schema did, by hand
  // (the fixture would apply every migration first).
  auto put = [&](const std::string& bytes) {
    std::string digest = cas::DigestOf(bytes);
    EXPECT_TRUE(store->Put(*store::MakeKey("t1", digest), bytes).ok());
    db.Exec(
        "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
        "last_seen_at) VALUES ('t1', $1, $2, now() - interval '3 hours', "
        "now() - interval '3 hours')",
        {digest, std::to_string(bytes.size())});
    return digest;
  };
  std::string shared = put("shared by all three");
  std::string ready_only = put("ready only"),
              degraded_only = put("degraded only"),
              released_only = put("released only");
  auto manifest =
      [&](const std::vector<std::pair<std::string, std::string>>& entries) {
        cas::Manifest m;
        for (const auto& [name, digest] : entries) {
          m.entries.push_back(
              {name, cas::ManifestEntry::Kind::kBlob, digest,
               static_cast<uint64_t>(
                   db.Int("SELECT size FROM awc.objects WHERE digest = $1",
                          {digest}))});
        }
        return put(cas::SerializeManifest(m));
      };
  std::map<std::string, int64_t> ids;
  std::map<std::string, std::string> roots;
  for (const auto& [state, own] :
       std::vector<std::pair<std::string, std::string>>{
           {"READY", ready_only},
           {"DEGRADED", degraded_only},
           {"RELEASED", released_only}}) {
    std::string root = manifest({{"a", shared}, {"b", own}});
    roots[state] = root;
    ids[state] = std::stoll(db.Scalar(
        "INSERT INTO awc.snapshots (tenant_id, root_digest, state) VALUES "
        "('t1', $1, $2) RETURNING id",
        {root, state}));
    for (const std::string& d : {root, shared, own}) {
      db.Exec(
          "INSERT INTO awc.snapshot_objects (snapshot_id, digest) VALUES ($1, "
          "$2)",
          {std::to_string(ids[state]), d});
    }
  }
  db.Migrate();

  // The closures still read as before.
  for (const auto& [state, id] : ids) {
    EXPECT_EQ(db.Int("SELECT count(*) FROM awc.snapshot_objects WHERE "
                     "snapshot_id = $1",
                     {std::to_string(id)}),
              3)
        << state;
  }
  auto gc_conn = db.Connect();
  gc::SweepOptions o;
  o.grace_secs = kGrace;
  o.batch_size = 100;
  o.canary_size = 10;
  o.holder = "gc-upgrade";
  auto r = gc::RunSweepWithHooks(*gc_conn, *store, "t1", o, nullptr, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deleted, 2);  // the released root and its own blob
  auto in_store = [&](const std::string& d) {
    return store->Head(*store::MakeKey("t1", d)).ok();
  };
  EXPECT_FALSE(in_store(roots["RELEASED"]));
  EXPECT_FALSE(in_store(released_only));
  for (const std::string& d :
       {shared, ready_only, degraded_only, roots["READY"], roots["DEGRADED"]}) {
    EXPECT_TRUE(in_store(d)) << d;
  }

  // A new snapshot over the READY one's content: read in full (legacy
  // content is not trusted), then held by reference.
  TestContext ctx(db, *store);
  std::string root = manifest({{"a", shared}, {"c", ready_only}});
  int64_t fresh = std::stoll(db.Scalar(
      "INSERT INTO awc.snapshots (tenant_id, root_digest) VALUES ('t1', $1) "
      "RETURNING id",
      {root}));
  queue::Outcome v =
      handlers::ValidateSnapshot(ctx, handlers::SnapshotPayload{fresh});
  ASSERT_EQ(ResultField(v, "verdict"), "ready") << v.error;
  EXPECT_EQ(ResultField(v, "read"), "3");
  EXPECT_EQ(ResultField(v, "trusted"), "0");
  // Its references once counted, as the next epoch counts them first.
  auto counted_refs = [&](const std::string& d) {
    auto conn = db.Connect();
    for (;;) {
      Result<int64_t> n = catalog::CountFileEntries(*conn, "t1", 100);
      EXPECT_TRUE(n.ok()) << n.status().message();
      if (!n.ok() || *n == 0) break;
    }
    return db.Int("SELECT refs FROM awc.objects WHERE digest = $1", {d});
  };
  EXPECT_EQ(counted_refs(shared), 1);
  // A scrub of the READY snapshot from before reads it in full and records
  // it as a DAG: it holds references from then on, its old rows are gone,
  // and its closure reads as before.
  const std::string ready_id = std::to_string(ids["READY"]);
  queue::Outcome scrubbed =
      handlers::ScrubSnapshot(ctx, handlers::ScrubPayload{ids["READY"], 0});
  ASSERT_EQ(ResultField(scrubbed, "verdict"), "clean") << scrubbed.error;
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.legacy_closures WHERE "
                   "snapshot_id = $1",
                   {ready_id}),
            0);
  EXPECT_EQ(db.Scalar("SELECT holds_refs FROM awc.snapshots WHERE id = $1",
                      {ready_id}),
            "t");
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.snapshot_objects WHERE "
                   "snapshot_id = $1",
                   {ready_id}),
            3);
  EXPECT_EQ(counted_refs(shared), 2);
  EXPECT_EQ(db.Scalar("SELECT data->>'recorded' FROM awc.audit_events WHERE "
                      "event = 'snapshot.scrub' AND subject = $1",
                      {"snapshot/" + ready_id}),
            "true");
  // The old READY snapshot released with plain SQL: the epoch drops its
  // reference first; its content stays, held by the new.
  db.Exec("UPDATE awc.snapshots SET state = 'RELEASED' WHERE id = $1",
          {std::to_string(ids["READY"])});
  db.Exec(
      "UPDATE awc.objects SET created_at = now() - interval '3 hours', "
      "last_seen_at = now() - interval '3 hours'");
  o.holder = "gc-upgrade-2";
  auto again = gc::RunSweepWithHooks(*gc_conn, *store, "t1", o, nullptr, {});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->deleted, 1);  // only the old READY root
  EXPECT_FALSE(in_store(roots["READY"]));
  EXPECT_TRUE(in_store(shared));
  EXPECT_TRUE(in_store(ready_only));
  EXPECT_TRUE(in_store(root));
}

}  // namespace
}  // namespace awc::testing
