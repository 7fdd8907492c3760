// The content DAG's bookkeeping (catalog/dag.h) against a real database:
// references cascade only where a count crosses zero, file entries are
// held until they are counted and counted once, additions refuse what
// cannot be referenced, trust follows the counts, damage travels up the
// recorded entries, and the roots of snapshots released or deleted by hand
// are reclaimed.
#include "catalog/dag.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/dag_sql.h"
#include "db/pg.h"
#include "digest/ids.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

class DagTest : public ::testing::Test {
 protected:
  DagTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    db_.Migrate();
    conn_ = db_.Connect("dag");
  }

  CasFixture::Entry Dir(const std::string& name, const std::string& digest) {
    CasFixture::Entry e = cas_.E(name, digest);
    e.manifest = true;
    return e;
  }
  // Walks `root` and records what the walk read, as validation does.
  void Record(const std::string& root) {
    Result<cas::ClosureReport> walk =
        cas::WalkClosure(*store_, "t1", root, {}, nullptr);
    ASSERT_TRUE(walk.ok() && walk->verdict == cas::Verdict::kOk);
    Status s = db::InTransaction(*conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(catalog::LockTenantDag(*conn_, "t1"));
      return catalog::RecordManifests(*conn_, "t1", *walk);
    });
    ASSERT_TRUE(s.ok()) << s.message();
  }
  Status Adjust(const std::vector<std::string>& digests, int delta) {
    return db::InTransaction(*conn_, [&]() -> Status {
      AWC_RETURN_IF_ERROR(catalog::LockTenantDag(*conn_, "t1"));
      return catalog::AdjustRefs(*conn_, "t1", digests, delta);
    });
  }
  int64_t Refs(const std::string& digest) {
    return db_.Int("SELECT refs FROM awc.objects WHERE digest = $1", {digest});
  }
  // Held by a referenced manifest whose file entries are not counted yet.
  bool Held(const std::string& digest) {
    return db_.Int("SELECT count(*) FROM awc.objects o WHERE o.tenant_id = "
                   "$1 AND o.digest = $2 AND " AWC_DAG_HELD_UNCOUNTED(
                       "o", "$1"),
                   {"t1", digest}) == 1;
  }
  // Counts every uncounted file entry, as GC does before it plans.
  int64_t CountAll() {
    int64_t total = 0;
    for (;;) {
      Result<int64_t> n = catalog::CountFileEntries(*conn_, "t1", 100);
      EXPECT_TRUE(n.ok()) << n.status().message();
      if (!n.ok() || *n == 0) return total;
      total += *n;
    }
  }
  std::vector<bool> Trust(const std::vector<cas::ClosureObject>& objs) {
    Result<std::vector<bool>> r = catalog::Trustable(*conn_, "t1", objs);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : std::vector<bool>{};
  }
  cas::ClosureObject Obj(const std::string& digest, bool manifest) {
    cas::ClosureObject o;
    EXPECT_TRUE(digest::ParseDigest(digest, &o.sha256));
    o.size = cas_.SizeOf(digest);
    o.is_manifest = manifest;
    return o;
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_F(DagTest, ReferencesCascadeOnlyWhereACountCrossesZero) {
  std::string blob = cas_.Blob("blob");
  std::string dir = cas_.Manifest({cas_.E("b", blob)});
  std::string a = cas_.Manifest({Dir("d", dir)});
  std::string b = cas_.Manifest({Dir("again", dir), cas_.E("x", blob)});
  Record(a);
  Record(b);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.object_edges"), 1 + 1 + 2);

  ASSERT_TRUE(Adjust({a}, +1).ok());
  EXPECT_EQ(Refs(a), 1);
  EXPECT_EQ(Refs(dir), 1);
  EXPECT_EQ(Refs(blob), 0);  // a file entry: held by dir, not counted yet
  EXPECT_TRUE(Held(blob));
  EXPECT_EQ(CountAll(), 2);  // a and dir
  EXPECT_EQ(Refs(blob), 1);
  EXPECT_FALSE(Held(blob));
  ASSERT_TRUE(Adjust({b}, +1).ok());
  EXPECT_EQ(Refs(dir), 2);  // from a and b
  EXPECT_EQ(CountAll(), 1);  // b
  EXPECT_EQ(Refs(blob), 2);  // from dir (once, however shared) and from b
  // Becoming referenced stamps the read that gave the reference; a file
  // counted later was not read then.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE verified_at IS "
                    "NULL"),
            1);

  ASSERT_TRUE(Adjust({a}, -1).ok());
  EXPECT_EQ(Refs(a), 0);
  EXPECT_EQ(Refs(dir), 1);
  EXPECT_EQ(Refs(blob), 2);  // dir still referenced: nothing went below it
  ASSERT_TRUE(Adjust({b}, -1).ok());
  for (const std::string& d : {a, b, dir, blob}) EXPECT_EQ(Refs(d), 0) << d;
  EXPECT_FALSE(Held(blob));
}

TEST_F(DagTest, FileEntriesAreHeldUntilCountedAndCountedOnce) {
  std::string x = cas_.Blob("x"), y = cas_.Blob("y");
  std::string d1 = cas_.Manifest({cas_.E("x", x)});
  std::string d2 = cas_.Manifest({cas_.E("x", x), cas_.E("y", y)});
  std::string root = cas_.Manifest({Dir("d1", d1), Dir("d2", d2)});
  Record(root);
  ASSERT_TRUE(Adjust({root}, +1).ok());
  EXPECT_TRUE(Held(x));
  EXPECT_TRUE(Held(y));
  // Released before any count: nothing was counted, nothing is undone.
  ASSERT_TRUE(Adjust({root}, -1).ok());
  for (const std::string& d : {root, d1, d2, x, y}) {
    EXPECT_EQ(Refs(d), 0) << d;
    EXPECT_FALSE(Held(d)) << d;
  }
  EXPECT_EQ(CountAll(), 0);  // an unreferenced manifest owes nothing

  // Referenced again: its file entries start uncounted again, and are
  // counted a few manifests at a time.
  ASSERT_TRUE(Adjust({root}, +1).ok());
  Result<int64_t> first = catalog::CountFileEntries(*conn_, "t1", 2);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, 2);
  EXPECT_EQ(CountAll(), 1);
  EXPECT_EQ(Refs(x), 2);
  EXPECT_EQ(Refs(y), 1);
  EXPECT_EQ(CountAll(), 0);  // once
  EXPECT_EQ(Refs(x), 2);

  // Released after the count: the counts come off with it.
  ASSERT_TRUE(Adjust({root}, -1).ok());
  EXPECT_EQ(db_.Int("SELECT coalesce(sum(refs), 0) FROM awc.objects"), 0);
}

TEST_F(DagTest, AnAdditionRefusesWhatCannotBeReferenced) {
  std::string blob = cas_.Blob("blob");
  std::string dir = cas_.Manifest({cas_.E("b", blob)});
  std::string root = cas_.Manifest({Dir("d", dir)});
  // Entries not recorded: a manifest cannot gain a reference.
  Status s = Adjust({root}, +1);
  EXPECT_TRUE(s.IsTransient()) << s.message();
  EXPECT_NE(s.message().find("has no recorded entries"), std::string::npos);
  Record(root);
  // The rows whose counts change are checked: here dir, an entry that
  // names a manifest. (A file entry is vouched for by the validation that
  // read it, under the same lock: catalog/dag.h.)
  for (const char* sql :
       {"UPDATE awc.objects SET state = 'DELETING' WHERE digest = $1",
        "UPDATE awc.objects SET damaged_at = now() WHERE digest = $1"}) {
    db_.Exec(sql, {dir});
    Status refused = Adjust({root}, +1);
    EXPECT_TRUE(refused.IsTransient()) << refused.message();
    EXPECT_EQ(Refs(root), 0);  // rolled back whole
    EXPECT_EQ(Refs(dir), 0);
    db_.Exec(
        "UPDATE awc.objects SET state = 'LIVE', damaged_at = NULL WHERE "
        "digest = $1",
        {dir});
  }
  db_.Exec("DELETE FROM awc.objects WHERE digest = $1", {dir});
  Status missing = Adjust({root}, +1);
  EXPECT_TRUE(missing.IsTransient()) << missing.message();
  EXPECT_EQ(Refs(root), 0);
}

TEST_F(DagTest, TrustFollowsTheCounts) {
  std::string blob = cas_.Blob("blob");
  std::string dir = cas_.Manifest({cas_.E("b", blob)});
  std::string root = cas_.Manifest({Dir("d", dir)});
  EXPECT_EQ(Trust({Obj(dir, true), Obj(blob, false)}),
            (std::vector<bool>{false, false}));  // unreferenced
  Record(root);
  ASSERT_TRUE(Adjust({root}, +1).ok());
  EXPECT_EQ(Trust({Obj(dir, true), Obj(blob, false)}),
            (std::vector<bool>{true, true}));
  cas::ClosureObject wrong_size = Obj(blob, false);
  wrong_size.size += 1;
  cas::ClosureObject root_unsized = Obj(root, true);
  root_unsized.size = 0;  // the root's size is not declared
  EXPECT_EQ(Trust({wrong_size, root_unsized}),
            (std::vector<bool>{false, true}));
  // A manifest reached as a blob elsewhere is not trusted as a manifest
  // without its entries recorded.
  std::string other = cas_.Manifest({cas_.E("x", cas_.Blob("x"))});
  std::string holder = cas_.Manifest({cas_.E("as-blob", other)});
  Record(holder);
  ASSERT_TRUE(Adjust({holder}, +1).ok());
  EXPECT_TRUE(Held(other));
  EXPECT_EQ(Trust({Obj(other, true), Obj(other, false)}),
            (std::vector<bool>{false, true}));
  // Recorded as a manifest too, but only held (through holder's file
  // entry), not referenced: its own entries have no references from it,
  // so it is trusted as a file only.
  Record(other);
  EXPECT_EQ(Refs(other), 0);
  EXPECT_EQ(Trust({Obj(other, true), Obj(other, false)}),
            (std::vector<bool>{false, true}));
  // Counted through that entry, it is a file to the references: it gives
  // its entries none, so it loses its recorded mark, and a walk reads it.
  EXPECT_EQ(CountAll(), 3);  // root, dir, holder
  EXPECT_EQ(Refs(other), 1);
  EXPECT_EQ(Trust({Obj(other, true), Obj(other, false)}),
            (std::vector<bool>{false, true}));
  Record(other);  // read as a manifest again: its entries get theirs
  EXPECT_EQ(Trust({Obj(other, true)}), (std::vector<bool>{true}));
  EXPECT_TRUE(Held(cas_.Blob("x")));
  // Damaged or DELETING: not trusted.
  db_.Exec("UPDATE awc.objects SET damaged_at = now() WHERE digest = $1",
           {dir});
  EXPECT_EQ(Trust({Obj(dir, true)}), (std::vector<bool>{false}));
}

TEST_F(DagTest, DamageTravelsUpAndNamesTheReadySnapshotsItReaches) {
  std::string bad = cas_.Blob("bad");
  std::string dir = cas_.Manifest({cas_.E("b", bad)});
  std::string a = cas_.Manifest({Dir("d", dir)});
  std::string b =
      cas_.Manifest({Dir("deeper", cas_.Manifest({Dir("d", dir)}))});
  std::string c = cas_.Manifest({cas_.E("o", cas_.Blob("other"))});
  for (const std::string& r : {a, b, c}) Record(r);
  int64_t sa = cas_.Snapshot(a, "READY"), sb = cas_.Snapshot(b, "READY");
  cas_.Snapshot(c, "READY");
  cas_.Snapshot(a, "RELEASED");
  Result<std::vector<catalog::DamagedSnapshot>> hit =
      catalog::MarkDamaged(*conn_, "t1", {bad});
  ASSERT_TRUE(hit.ok()) << hit.status().message();
  ASSERT_EQ(hit->size(), 2u);
  EXPECT_EQ((*hit)[0].id, sa);
  EXPECT_EQ((*hit)[1].id, sb);
  EXPECT_EQ((*hit)[1].bad_digests, std::vector<std::string>{bad});
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE damaged_at IS "
                    "NOT NULL"),
            4);  // bad, dir, a (which is also b's inner manifest), b
  // Read good again (restored) by a walk that began after the damage was
  // marked: the damage comes off. Marked after the walk began (a scrub
  // read it bad meanwhile), it stays.
  Result<std::string> before_damage = catalog::DatabaseClock(*conn_);
  ASSERT_TRUE(before_damage.ok());
  db_.Exec(
      "UPDATE awc.objects SET damaged_at = clock_timestamp() WHERE "
      "digest = $1",
      {dir});
  Result<std::string> walk_began = catalog::DatabaseClock(*conn_);
  ASSERT_TRUE(walk_began.ok());
  ASSERT_TRUE(
      catalog::ClearDamaged(*conn_, "t1", {bad, dir}, *before_damage).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE damaged_at IS "
                    "NOT NULL"),
            3);  // bad's came off; dir was marked after the walk began
  ASSERT_TRUE(
      catalog::ClearDamaged(*conn_, "t1", {bad, dir}, *walk_began).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE damaged_at IS "
                    "NOT NULL"),
            2);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE digest = $1 AND "
                    "verified_at = $2::timestamptz",
                    {dir, *walk_began}),
            1);  // verified when the walk began, not at the commit
}

TEST_F(DagTest, RootsReleasedOrDeletedByHandAreReclaimed) {
  std::string ra = cas_.Manifest({cas_.E("a", cas_.Blob("a"))});
  std::string rb = cas_.Manifest({cas_.E("b", cas_.Blob("b"))});
  Record(ra);
  Record(rb);
  int64_t a = cas_.Snapshot(ra, "READY"), b = cas_.Snapshot(rb, "READY");
  db_.Exec("UPDATE awc.snapshots SET holds_refs = true");
  ASSERT_TRUE(Adjust({ra, rb}, +1).ok());
  db_.Exec("UPDATE awc.snapshots SET state = 'RELEASED' WHERE id = $1",
           {std::to_string(a)});
  db_.Exec("DELETE FROM awc.snapshots WHERE id = $1", {std::to_string(b)});
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.dropped_roots"), 1);
  Result<int64_t> dropped = catalog::DropStrayRootRefsNow(*conn_, "t1");
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_EQ(*dropped, 2);
  EXPECT_EQ(db_.Int("SELECT coalesce(sum(refs), 0) FROM awc.objects"), 0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.dropped_roots"), 0);
  EXPECT_EQ(*catalog::DropStrayRootRefsNow(*conn_, "t1"), 0);  // once
}

TEST_F(DagTest, ARecordedClosureStreamsWithItsFreshness) {
  std::string x = cas_.Blob("x"), y = cas_.Blob("y");
  std::string root = cas_.Manifest({cas_.E("x", x), cas_.E("y", y)});
  Record(root);
  ASSERT_TRUE(Adjust({root}, +1).ok());
  Result<catalog::DagClosureStats> stats =
      catalog::ClosureStatsOf(*conn_, "t1", root);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->objects, 3);
  EXPECT_EQ(stats->bytes, static_cast<int64_t>(cas_.SizeOf(root) + 2));
  db_.Exec("UPDATE awc.objects SET verified_at = now() - interval '2 hours'");
  Result<std::string> read_x = catalog::DatabaseClock(*conn_);
  ASSERT_TRUE(read_x.ok());
  ASSERT_TRUE(catalog::MarkVerified(*conn_, "t1", {x}, *read_x).ok());
  Result<std::string> requested = catalog::DatabaseClock(*conn_);
  ASSERT_TRUE(requested.ok());
  Result<std::string> read_y = catalog::DatabaseClock(*conn_);
  ASSERT_TRUE(read_y.ok());
  ASSERT_TRUE(catalog::MarkVerified(*conn_, "t1", {y}, *read_y).ok());
  auto fresh = [&](int64_t secs, const std::string& since) {
    std::vector<std::pair<std::string, bool>> seen;
    EXPECT_TRUE(
        catalog::ForEachRecordedObject(*conn_, "t1", root, secs, since,
                                       [&](const catalog::RecordedObject& o) {
                                         seen.emplace_back(o.digest, o.fresh);
                                         return Status::OK();
                                       })
            .ok());
    return seen;
  };
  auto in_order = [](std::vector<std::pair<std::string, bool>> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  // Within the hour: x and y; since the request: y alone, x was read
  // before it; both ways: the union.
  EXPECT_EQ(fresh(3600, ""), in_order({{root, false}, {x, true}, {y, true}}));
  EXPECT_EQ(fresh(0, *requested),
            in_order({{root, false}, {x, false}, {y, true}}));
  EXPECT_EQ(fresh(3600, *requested),
            in_order({{root, false}, {x, true}, {y, true}}));
  // A damaged object is never fresh, however recent its verification.
  db_.Exec("UPDATE awc.objects SET damaged_at = now() WHERE digest = $1", {y});
  EXPECT_EQ(fresh(3600, *requested),
            in_order({{root, false}, {x, true}, {y, false}}));
  // A stamp is never moved back by a page that began reading earlier.
  ASSERT_TRUE(catalog::MarkVerified(*conn_, "t1", {x}, *read_x).ok());
  ASSERT_TRUE(catalog::MarkVerified(*conn_, "t1", {y}, *read_x).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE digest = $1 AND "
                    "verified_at = $2::timestamptz AND damaged_at IS NOT NULL",
                    {y, *read_y}),
            1);  // and the damage marked after read_x stays
}

TEST_F(DagTest, AClosureCountsEachObjectOnceAndItsDeepestManifest) {
  // x is named by two directories and twice by one of them; d is reached
  // at depth 1 and, through `deep`, at depth 2 (its depth: the shorter).
  std::string x = cas_.Blob("x"), y = cas_.Blob("y");
  std::string d = cas_.Manifest({cas_.E("x", x), cas_.E("again", x)});
  std::string e = cas_.Manifest({cas_.E("x", x), cas_.E("y", y)});
  std::string deep = cas_.Manifest({Dir("d", d), Dir("e", e)});
  std::string root = cas_.Manifest({Dir("d", d), Dir("deep", deep)});
  Record(root);
  ASSERT_TRUE(Adjust({root}, +1).ok());
  Result<catalog::DagClosureStats> stats =
      catalog::ClosureStatsOf(*conn_, "t1", root);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->objects, 6);  // root, deep, d, e, x, y
  EXPECT_EQ(stats->bytes,
            static_cast<int64_t>(cas_.SizeOf(root) + cas_.SizeOf(deep) +
                                 cas_.SizeOf(d) + cas_.SizeOf(e) +
                                 cas_.SizeOf(x) + cas_.SizeOf(y)));
  EXPECT_EQ(stats->max_manifest_depth, 2);  // e, under deep
  // The same as the closure's rows say.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.dag_closure($1, "
                    "decode(substr($2, 8), 'hex'))",
                    {"t1", root}),
            6);
  EXPECT_EQ(db_.Int("SELECT max(manifest_depth) FROM awc.dag_closure($1, "
                    "decode(substr($2, 8), 'hex'))",
                    {"t1", root}),
            2);
}

}  // namespace
}  // namespace awc::testing
