// The inventory rows validation adds, against a real database and file://
// stores: every row added for an object the walk read records the size it
// read, also the root's, which no manifest declares, so that the first
// scrub of the intact snapshot finds it clean and never asks the repair
// store for a copy (docs/data-model.md, "The inventory protocol";
// docs/store.md, "Trust"). The same holds for the rows a scrub records
// when it walks a snapshot that holds no references.
#include <gtest/gtest.h>

#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "store/file_store.h"
#include "store/read_only_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

using handlers::ScrubPayload;
using handlers::SnapshotPayload;

class ValidateInventoryTest : public ::testing::Test {
 protected:
  ValidateInventoryTest() {
    auto st = store::NewFileStore(dir_.path());
    EXPECT_TRUE(st.ok()) << st.status().message();
    store_ = std::move(*st);
    auto replica = store::NewFileStore(replica_dir_.path());
    EXPECT_TRUE(replica.ok()) << replica.status().message();
    replica_fill_ = std::move(*replica);
    auto read_only = store::NewFileStore(replica_dir_.path());
    EXPECT_TRUE(read_only.ok()) << read_only.status().message();
    repair_ = store::NewReadOnlyStore(std::move(*read_only));
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    ctx_ = std::make_unique<TestContext>(db_, *store_);
    ctx_->set_repair_store(repair_.get());
  }

  // Every object of the store also in the repair store, as a replica
  // holds them.
  void Replicate(const std::vector<std::string>& digests) {
    for (const std::string& d : digests) {
      std::string bytes;
      auto key = store::MakeKey("t1", d);
      ASSERT_TRUE(key.ok());
      ASSERT_TRUE(store_
                      ->Get(*key,
                            [&](std::string_view c) {
                              bytes.append(c);
                              return Status::OK();
                            })
                      .ok());
      ASSERT_TRUE(replica_fill_->Put(*key, bytes).ok());
    }
  }
  // The inventory rows whose size is not the size of the object in the
  // store, as "digest: row size != store size".
  std::vector<std::string> WrongSizes() {
    std::vector<std::string> wrong;
    auto conn = db_.Connect("awc-test-sizes");
    auto rows = conn->Exec(
        "SELECT digest, size FROM awc.objects WHERE tenant_id = 't1' ORDER "
        "BY digest");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) return wrong;
    for (int i = 0; i < rows->rows(); ++i) {
      std::string digest = rows->GetString(i, 0);
      Result<uint64_t> size = store_->Head(*store::MakeKey("t1", digest));
      EXPECT_TRUE(size.ok()) << digest << ": " << size.status().ToString();
      if (size.ok() && static_cast<int64_t>(*size) != rows->GetInt(i, 1)) {
        wrong.push_back(digest + ": " + std::to_string(rows->GetInt(i, 1)) +
                        " != " + std::to_string(*size));
      }
    }
    return wrong;
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  // The first scrub of an intact snapshot: clean, nothing repaired.
  void ExpectCleanScrub(int64_t id) {
    ctx_->NextJob();
    queue::Outcome o = handlers::ScrubSnapshot(*ctx_, ScrubPayload{id, 0});
    ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
    EXPECT_EQ(ResultField(o, "verdict"), "clean") << o.result;
    EXPECT_EQ(ResultField(o, "bad"), "0") << o.result;
    EXPECT_EQ(ResultField(o, "repaired"), "") << o.result;
    EXPECT_EQ(SnapState(id), "READY");
    EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event "
                      "LIKE 'object.repair%'"),
              0);
  }

  TestDatabase db_;
  TempDir dir_;
  TempDir replica_dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<store::ObjectStore> replica_fill_;
  std::unique_ptr<store::ObjectStore> repair_;
  std::unique_ptr<CasFixture> cas_;
  std::unique_ptr<TestContext> ctx_;
};

TEST_F(ValidateInventoryTest, ARootNobodyRegisteredGetsTheSizeRead) {
  std::string a = cas_->Blob("alpha");
  std::string b = cas_->Blob("bravo, a little longer");
  std::string root = cas_->Manifest({cas_->E("a", a), cas_->E("b", b)});
  ASSERT_GT(cas_->SizeOf(root), 100u);
  Replicate({a, b, root});
  // The producer registered the blobs but not the root.
  db_.Exec("DELETE FROM awc.objects WHERE digest = $1", {root});
  int64_t id = cas_->Snapshot(root);

  queue::Outcome o = handlers::ValidateSnapshot(*ctx_, SnapshotPayload{id});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  ASSERT_EQ(ResultField(o, "verdict"), "ready") << o.result;
  EXPECT_EQ(db_.Int("SELECT size FROM awc.objects WHERE digest = $1", {root}),
            static_cast<int64_t>(cas_->SizeOf(root)));
  EXPECT_EQ(WrongSizes(), std::vector<std::string>{});
  ExpectCleanScrub(id);
}

TEST_F(ValidateInventoryTest, ATreeNobodyRegisteredGetsTheSizesRead) {
  std::string root = cas_->Tree(120, "unregistered");
  db_.Exec("DELETE FROM awc.objects");
  int64_t id = cas_->Snapshot(root);

  queue::Outcome o = handlers::ValidateSnapshot(*ctx_, SnapshotPayload{id});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  ASSERT_EQ(ResultField(o, "verdict"), "ready") << o.result;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"),
            std::stoll(ResultField(o, "objects")));
  EXPECT_EQ(WrongSizes(), std::vector<std::string>{});
  ExpectCleanScrub(id);
}

// A snapshot set READY by someone else than validation, whose producer
// registered nothing: its scrub walks it from the root and records the
// walk, inventory rows included.
TEST_F(ValidateInventoryTest, AScrubsRecordedWalkGetsTheSizesRead) {
  std::string root = cas_->Tree(60, "set ready by hand");
  db_.Exec("DELETE FROM awc.objects");
  int64_t id = cas_->Snapshot(root, "READY");

  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, ScrubPayload{id, 0});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  ASSERT_EQ(ResultField(o, "verdict"), "clean") << o.result;
  EXPECT_GT(db_.Int("SELECT count(*) FROM awc.objects"), 60);
  EXPECT_EQ(WrongSizes(), std::vector<std::string>{});
  ExpectCleanScrub(id);
}

}  // namespace
}  // namespace awc::testing
