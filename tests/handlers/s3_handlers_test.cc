// The handlers over the s3:// store against s3rver: validation (including
// the server going away mid-walk), scrub, GC and inventory reconciliation.
#if AWC_WITH_S3

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "gc/sweep.h"
#include "handlers/gc_sweep.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "handlers/store_reconcile.h"
#include "obs/metrics_testing.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/s3_fixture.h"

namespace awc::store::s3test {
namespace {

using awc::testing::CasFixture;
using awc::testing::ResultField;
using awc::testing::TestContext;
using awc::testing::TestDatabase;

class S3HandlersTest : public S3StoreTest {
 protected:
  void SetUp() override {
    S3StoreTest::SetUp();
    store_ = Open();
    ASSERT_NE(store_, nullptr);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    handlers::HandlerOptions o;
    o.sweep.grace_secs = 3600;
    o.sweep.canary_size = 3;
    ctx_ = std::make_unique<TestContext>(db_, *store_, o);
  }
  void TearDown() override {
    ctx_.reset();
    cas_.reset();
    S3StoreTest::TearDown();
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }

  TestDatabase db_;
  ObjectStore* store_ = nullptr;
  std::unique_ptr<CasFixture> cas_;
  std::unique_ptr<TestContext> ctx_;
};

TEST_F(S3HandlersTest, ValidatesAndFailsLikeTheOtherStores) {
  std::string root = cas_->Tree(40, "s3");
  int64_t good = cas_->Snapshot(root);
  queue::Outcome o = handlers::ValidateSnapshot(*ctx_, {good});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "ready");
  EXPECT_EQ(SnapState(good), "READY");

  std::string ghost = cas::DigestOf("not uploaded");
  CasFixture::Entry e{"ghost", ghost, false, 12};
  int64_t bad = cas_->Snapshot(cas_->Manifest({e}));
  o = handlers::ValidateSnapshot(*ctx_, {bad});
  EXPECT_EQ(ResultField(o, "code"), "missing_object");
  EXPECT_EQ(SnapState(bad), "FAILED");
}

TEST_F(S3HandlersTest, ServerStoppedMidWalkIsRetriedThenReady) {
  std::string root = cas_->Tree(200, "walk");
  int64_t id = cas_->Snapshot(root);
  ctx_->on_checkpoint = [this](int n) {
    if (n == 2) server_->Kill();
  };
  queue::Outcome o = handlers::ValidateSnapshot(*ctx_, {id});
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kRetry) << o.result;
  EXPECT_EQ(SnapState(id), "VALIDATING");
  ctx_->on_checkpoint = nullptr;
  ASSERT_TRUE(server_->Restart());
  o = handlers::ValidateSnapshot(*ctx_, {id});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "ready");
  EXPECT_EQ(SnapState(id), "READY");
}

TEST_F(S3HandlersTest, ScrubFindsDecay) {
  std::string a = cas_->Blob("alpha"), b = cas_->Blob("bravo");
  int64_t id =
      cas_->Snapshot(cas_->Manifest({cas_->E("a", a), cas_->E("b", b)}));
  ASSERT_EQ(ResultField(handlers::ValidateSnapshot(*ctx_, {id}), "verdict"),
            "ready");
  cas_->PutRaw(b, "brav0");
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id});
  EXPECT_EQ(ResultField(o, "verdict"), "degraded");
  EXPECT_EQ(ResultField(o, "bad"), "1");
  EXPECT_EQ(SnapState(id), "DEGRADED");
}

TEST_F(S3HandlersTest, GcDeletesGarbageWithDeleteObjects) {
  PutAnchors(store_, "t1");
  std::string live = cas_->Blob("live");
  int64_t id = cas_->Snapshot(cas_->Manifest({cas_->E("l", live)}));
  ASSERT_EQ(ResultField(handlers::ValidateSnapshot(*ctx_, {id}), "verdict"),
            "ready");
  std::vector<std::string> garbage;
  for (int i = 0; i < 40; ++i)
    garbage.push_back(cas_->Blob("junk " + std::to_string(i)));
  cas_->AgeAll(7200);
  queue::Outcome o = handlers::SweepTenant(*ctx_, {"t1"});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "deleted"), "40");
  for (const std::string& d : garbage) {
    EXPECT_TRUE(store_->Head(*MakeKey("t1", d)).status().IsNotFound()) << d;
  }
  EXPECT_TRUE(store_->Head(*MakeKey("t1", live)).ok());
}

// Reconciliation over S3: the listing's pages, LastModified and keys that
// are not objects', against the inventory. Nothing is read but the list
// and a Head of each suspect.
TEST_F(S3HandlersTest, ReconcileFindsOrphansMissingObjectsAndStrayKeys) {
  std::string keep = cas_->Blob("kept");
  std::string lost = cas_->Blob("lost from the bucket");
  int64_t snap = cas_->Snapshot(
      cas_->Manifest({cas_->E("keep", keep), cas_->E("lost", lost)}));
  ASSERT_EQ(ResultField(handlers::ValidateSnapshot(*ctx_, {snap}), "verdict"),
            "ready");
  ASSERT_TRUE((*store_->DeleteMany({*MakeKey("t1", lost)}))[0].ok());
  std::string orphan = cas::DigestOf("uploaded by a producer that crashed");
  ASSERT_TRUE(
      store_->Put(*MakeKey("t1", orphan), "uploaded by a producer that crashed")
          .ok());
  std::string stray = server_->data_dir() + "-stray";
  std::ofstream(stray) << "someone else's file";
  ASSERT_TRUE(AwsCli("put-object --bucket " + std::string(kBucket) +
                     " --key t1/notes.txt --body " + stray));
  std::remove(stray.c_str());
  cas_->AgeAll(60);
  // S3 keeps whole seconds: the orphan is older than a grace of 0 a second
  // later.
  ctx_->mutable_options().sweep.grace_secs = 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));

  ctx_->NextJob();
  queue::Outcome o = handlers::ReconcileTenant(*ctx_, {"t1"});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "orphans"), "1");
  EXPECT_EQ(ResultField(o, "missing"), "1");
  EXPECT_EQ(ResultField(o, "degraded"), "1");
  EXPECT_EQ(ResultField(o, "other_keys"), "1");
  EXPECT_EQ(SnapState(snap), "DEGRADED");
  EXPECT_EQ(
      db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {orphan}),
      "LIVE");
  EXPECT_EQ(
      obs::testing::Read(ctx_->counted(), obs::MetricId::kReconcileOrphans, {}),
      1);
  EXPECT_EQ(obs::testing::Read(ctx_->counted(),
                               obs::MetricId::kReconcileMissingObjects, {}),
            1);
  EXPECT_TRUE(AwsCli("head-object --bucket " + std::string(kBucket) +
                     " --key t1/notes.txt"));
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
