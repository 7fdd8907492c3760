// The importer (awcctl import's producer side), in-process against the real
// database: a file that changes while it is being imported; a deduplicated
// object that GC collects while the import runs; a deadlock it loses.
#include "cli/importer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <thread>
#include <utility>

#include "cas/closure.h"
#include "catalog/dag.h"
#include "catalog/snapshots.h"
#include "common/env.h"
#include "digest/sha256.h"
#include "handlers/snapshot_validate.h"
#include "store/file_store.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// Forwards to another store; right before it uploads the file named
// `victim`, it appends to that file, as a writer racing the import would
// between the importer's hashing pass and its upload.
class RacingStore : public store::ObjectStore {
 public:
  RacingStore(store::ObjectStore& inner, std::string victim)
      : inner_(inner), victim_(std::move(victim)) {}

  const char* scheme() const override { return inner_.scheme(); }
  Status Get(const store::ObjectKey& key,
             const store::ChunkSink& sink) override {
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
    if (path.ends_with("/" + victim_)) {
      std::ofstream(path, std::ios::binary | std::ios::app) << " and more";
      ++raced_;
    }
    return inner_.PutFile(key, path);
  }
  Result<std::vector<Status>> DeleteMany(
      const std::vector<store::ObjectKey>& keys) override {
    return inner_.DeleteMany(keys);
  }
  Status List(const std::string& tenant, const std::string& after,
              const ListFn& each) override {
    return inner_.List(tenant, after, each);
  }
  Result<std::string> ReadMarker() override { return inner_.ReadMarker(); }
  Status WriteMarker(std::string_view content) override {
    return inner_.WriteMarker(content);
  }

  int raced() const { return raced_; }

 private:
  store::ObjectStore& inner_;
  std::string victim_;
  int raced_ = 0;
};

// Forwards to another store; right before it uploads the file named
// `trigger`, it runs `collect` (it races no file), as a GC epoch that completes
// between the importer's look at the inventory and its registration would.
class CollectingStore : public RacingStore {
 public:
  CollectingStore(store::ObjectStore& inner, std::string trigger,
                  std::function<void()> collect)
      : RacingStore(inner, ""),
        trigger_(std::move(trigger)),
        collect_(std::move(collect)) {}
  Status PutFile(const store::ObjectKey& key,
                 const std::string& path) override {
    if (path.ends_with("/" + trigger_) && collect_) {
      std::exchange(collect_, nullptr)();
    }
    return RacingStore::PutFile(key, path);
  }

 private:
  std::string trigger_;
  std::function<void()> collect_;
};

class ImportTest : public ::testing::TestWithParam<std::string> {
 protected:
  ImportTest() {
    db_.Migrate();
    if (GetParam() == "file") {
      auto st = store::NewFileStore(store_dir_.path());
      EXPECT_TRUE(st.ok()) << st.status().ToString();
      store_ = std::move(*st);
    } else {
      store_ = store::NewMemoryStore();
    }
    conn_ = db_.Connect("producer");
  }

  Result<cli::ImportResult> Import(store::ObjectStore& store,
                                   const std::string& dir) {
    cli::ImportOptions opt;
    opt.tenant_id = "t1";
    opt.dir = dir;
    return cli::ImportTree(*conn_, store, opt);
  }

  TestDatabase db_;
  TempDir store_dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<db::PgConn> conn_;
};

TEST_P(ImportTest, AFileChangedWhileImportedFailsTheImportAndStoresNothing) {
  const std::string original = "the content that was hashed";
  const std::string digest = "sha256:" + digest::Sha256::HexOf(original);
  TempDir tree;
  tree.Write("a.txt", original);
  tree.Write("b.txt", "an unchanged neighbour");
  RacingStore racing(*store_, "a.txt");

  Result<cli::ImportResult> r = Import(racing, tree.path());
  ASSERT_EQ(racing.raced(), 1);
  ASSERT_FALSE(r.ok()) << "the import of a changed file succeeded";
  EXPECT_NE(r.status().message().find("a.txt"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("changed"), std::string::npos)
      << r.status().message();
  // Nothing is stored under the digest of the old content, and nothing
  // was registered or enqueued.
  EXPECT_TRUE(
      store_->Head(*store::MakeKey("t1", digest)).status().IsNotFound());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.snapshots"), 0);
  EXPECT_EQ(
      db_.Int("SELECT count(*) FROM awc.objects WHERE digest = $1", {digest}),
      0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 0);

  // An untouched copy of the same content imports cleanly: it is uploaded
  // (there is no bad object to deduplicate against) and validates.
  TempDir copy;
  copy.Write("a.txt", original);
  Result<cli::ImportResult> again = Import(*store_, copy.path());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->uploaded, again->objects);
  Result<cas::ClosureReport> walk =
      cas::WalkClosure(*store_, "t1", again->root_digest, {}, nullptr);
  ASSERT_TRUE(walk.ok()) << walk.status().ToString();
  EXPECT_EQ(walk->verdict, cas::Verdict::kOk) << walk->detail;
}

TEST_P(ImportTest, ADeduplicatedObjectCollectedMeanwhileIsUploadedAgain) {
  const std::string shared = "content two snapshots share";
  const std::string digest = "sha256:" + digest::Sha256::HexOf(shared);
  TempDir first;
  first.Write("shared.txt", shared);
  ASSERT_TRUE(Import(*store_, first.path()).ok());
  ASSERT_EQ(
      db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {digest}),
      "LIVE");

  // The second import finds the shared object LIVE and deduplicates it;
  // while it uploads its new file, GC deletes the shared object (its first
  // snapshot released, the grace over) and removes its row.
  TempDir second;
  second.Write("shared.txt", shared);
  second.Write("new.txt", "only in the second snapshot");
  CollectingStore collecting(*store_, "new.txt", [&] {
    db_.Exec("UPDATE awc.objects SET state = 'DELETING' WHERE digest = $1",
             {digest});
    auto deleted = store_->DeleteMany({*store::MakeKey("t1", digest)});
    ASSERT_TRUE(deleted.ok());
    db_.Exec("DELETE FROM awc.objects WHERE digest = $1", {digest});
  });
  Result<cli::ImportResult> r = Import(collecting, second.path());
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // The importer noticed and uploaded it again: its fresh LIVE row names
  // an object the store has, and the snapshot's closure is whole.
  EXPECT_EQ(
      db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {digest}),
      "LIVE");
  EXPECT_TRUE(store_->Head(*store::MakeKey("t1", digest)).ok())
      << "a LIVE row for an object the store does not have";
  Result<cas::ClosureReport> walk =
      cas::WalkClosure(*store_, "t1", r->root_digest, {}, nullptr);
  ASSERT_TRUE(walk.ok()) << walk.status().ToString();
  EXPECT_EQ(walk->verdict, cas::Verdict::kOk) << walk->detail;
}

TEST_P(ImportTest, AnImportThatLosesADeadlockRunsAgain) {
  TempDir first;
  first.Write("a.txt", "shared a");
  first.Write("b.txt", "shared b");
  ASSERT_TRUE(Import(*store_, first.path()).ok());
  std::string low = "sha256:" + digest::Sha256::HexOf("shared a");
  std::string high = "sha256:" + digest::Sha256::HexOf("shared b");
  if (high < low) std::swap(low, high);

  // Another session holds the row the importer will lock last and, once
  // the importer waits for it, asks for one the importer holds: a
  // deadlock, which the server resolves against the importer (the other
  // session waits far longer before it looks for one).
  auto other = db_.Connect();
  std::thread contender;
  bool other_ok = false;
  TempDir second;
  second.Write("a.txt", "shared a");
  second.Write("b.txt", "shared b");
  second.Write("new.txt", "only in the second snapshot");
  CollectingStore contending(*store_, "new.txt", [&] {
    ASSERT_TRUE(other->Exec("BEGIN").ok());
    ASSERT_TRUE(other->Exec("SET LOCAL deadlock_timeout = '60s'").ok());
    ASSERT_TRUE(other
                    ->Exec("SELECT 1 FROM awc.objects WHERE digest = $1 "
                           "FOR UPDATE",
                           {high})
                    .ok());
    const std::string producer = std::to_string(PQbackendPID(conn_->raw()));
    contender = std::thread([&, producer] {
      auto watcher = db_.Connect();
      for (int i = 0; i < 3000; ++i) {
        auto r = watcher->Exec(
            "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND "
            "wait_event_type = 'Lock'",
            {producer});
        if (r.ok() && r->rows() > 0) break;
        Env::Default()->SleepFor(0.01);
      }
      other_ok = other
                     ->Exec(
                         "SELECT 1 FROM awc.objects WHERE digest = $1 "
                         "FOR UPDATE",
                         {low})
                     .ok() &&
                 other->Exec("COMMIT").ok();
    });
  });
  Result<cli::ImportResult> r = Import(contending, second.path());
  contender.join();
  EXPECT_TRUE(other_ok) << "the other session lost the deadlock instead";
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.snapshots"), 2);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 2);
}

// The cheaper rule: a directory whose manifest a READY snapshot already
// holds is reused by its top alone.
class ImportReuseTest : public ImportTest {
 protected:
  ImportReuseTest() : ctx_(db_, *store_) {}

  // Imports `dir` and validates the snapshot; the validation's result.
  std::pair<cli::ImportResult, queue::Outcome> ImportReady(
      store::ObjectStore& store, const std::string& dir) {
    Result<cli::ImportResult> r = Import(store, dir);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    ctx_.NextJob();
    queue::Outcome o = handlers::ValidateSnapshot(
        ctx_, handlers::SnapshotPayload{r->snapshot_id});
    EXPECT_EQ(ResultField(o, "verdict"), "ready") << o.error;
    return {*r, o};
  }
  void Write(TempDir& t, const std::string& changed) {
    for (int i = 0; i < 5; ++i) {
      t.Write("same/f" + std::to_string(i), "unchanged " + std::to_string(i));
    }
    t.Write("moving/f", changed);
  }
  // Makes every object look last touched an hour ago.
  void AgeAll() {
    db_.Exec(
        "UPDATE awc.objects SET created_at = now() - interval '1 hour', "
        "last_seen_at = now() - interval '1 hour'");
  }
  int64_t TouchedLately() {
    return db_.Int(
        "SELECT count(*) FROM awc.objects WHERE last_seen_at > now() - "
        "interval '10 minutes'");
  }

  TestContext ctx_;
};

TEST_P(ImportReuseTest, AReferencedDirectoryIsTouchedByItsTopAlone) {
  TempDir first, second;
  Write(first, "v1");
  Write(second, "v2");
  ImportReady(*store_, first.path());
  AgeAll();
  auto [r, validated] = ImportReady(*store_, second.path());
  EXPECT_EQ(r.reused_subtrees, 1);
  EXPECT_EQ(r.uploaded, 3);  // the new root, moving/ and its file
  // Touched: the three uploaded and the reused manifest of same/; its five
  // files were neither uploaded nor touched.
  EXPECT_EQ(TouchedLately(), 4);
  EXPECT_EQ(ResultField(validated, "read"), "3");
  EXPECT_EQ(ResultField(validated, "trusted"), "1");
  EXPECT_EQ(ResultField(validated, "objects"), "9");
}

TEST_P(ImportReuseTest, ADirectoryReleasedMeanwhileIsWalkedInto) {
  TempDir first, second;
  Write(first, "v1");
  Write(second, "v2");
  auto [old, ignored] = ImportReady(*store_, first.path());
  AgeAll();
  // While the second import uploads, the first snapshot is released: the
  // manifest of same/ it meant to reuse has no references left.
  CollectingStore releasing(*store_, "f", [&] {
    auto conn = db_.Connect();
    auto snap = catalog::LoadSnapshot(*conn, old.snapshot_id);
    ASSERT_TRUE(snap.ok() && snap->has_value());
    ASSERT_TRUE(catalog::ReleaseSnapshot(*conn, **snap, "test", false).ok());
    ASSERT_TRUE(catalog::DropStrayRootRefsNow(*conn, "t1").ok());
  });
  auto [r, validated] = ImportReady(releasing, second.path());
  EXPECT_EQ(r.reused_subtrees, 0);
  // Everything of the tree was registered: 3 uploaded, same/ and its five
  // files touched.
  EXPECT_EQ(TouchedLately(), 9);
  EXPECT_EQ(ResultField(validated, "trusted"), "0");
}

INSTANTIATE_TEST_SUITE_P(Stores, ImportReuseTest,
                         ::testing::Values("memory", "file"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param;
                         });

INSTANTIATE_TEST_SUITE_P(Stores, ImportTest,
                         ::testing::Values("memory", "file"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param;
                         });

}  // namespace
}  // namespace awc::testing
