// Repair from a replica store, against real stores: a file:// store
// repaired from an s3:// replica by validation, an s3:// store repaired
// from a second s3rver by scrub and by reconciliation, a replica that lacks
// the object, one that serves corrupt bytes, one that is down (the job
// retries), a row GC is deleting (left alone), and a DEGRADED snapshot
// made whole again (docs/store.md, "Repair").
#if AWC_WITH_S3

#include "handlers/object_repair.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "cas/manifest.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "handlers/store_reconcile.h"
#include "obs/metrics_testing.h"
#include "store/file_store.h"
#include "store/read_only_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/s3_fixture.h"

namespace awc::store::s3test {
namespace {

using awc::testing::CasFixture;
using awc::testing::ResultField;
using awc::testing::TempDir;
using awc::testing::TestContext;
using awc::testing::TestDatabase;

class RepairTest : public S3StoreTest {
 protected:
  void SetUp() override {
    S3StoreTest::SetUp();
    replica_server_ = std::make_unique<S3Server>();
    ASSERT_TRUE(replica_server_->ok());
    ASSERT_TRUE(replica_server_->CreateBucket(kBucket));
    // The replica, read-only as the worker opens it, and a writable handle
    // on the same bucket to fill it as replication would.
    replica_fill_ = Open(std::string("s3://") + kBucket, [this](S3Options& o) {
      o.endpoint = replica_server_->Endpoint();
    });
    ASSERT_NE(replica_fill_, nullptr);
    ObjectStore* replica = Open(
        std::string("s3://") + kBucket,
        [this](S3Options& o) { o.endpoint = replica_server_->Endpoint(); });
    replica_ = NewReadOnlyStore(std::unique_ptr<ObjectStore>(Release(replica)));
  }
  void TearDown() override {
    ctx_.reset();
    cas_.reset();
    replica_.reset();
    replica_server_.reset();
    S3StoreTest::TearDown();
  }

  // Hands a store Open() made over to the caller.
  ObjectStore* Release(ObjectStore* store) {
    for (auto& s : stores_) {
      if (s.get() == store) return s.release();
    }
    return nullptr;
  }

  // The primary store and the fixtures over it; every object it gets is
  // replicated, as a replica bucket or a backup would hold it.
  void UsePrimary(ObjectStore* primary) {
    primary_ = primary;
    cas_ = std::make_unique<CasFixture>(db_, *primary_, "t1");
    handlers::HandlerOptions o;
    o.sweep.grace_secs = 3600;
    ctx_ = std::make_unique<TestContext>(db_, *primary_, o);
    ctx_->set_repair_store(replica_.get());
  }
  void Replicate(const std::string& digest) {
    std::string bytes = Bytes(*primary_, digest);
    ASSERT_TRUE(replica_fill_->Put(*MakeKey("t1", digest), bytes).ok());
  }
  static std::string Bytes(ObjectStore& store, const std::string& digest) {
    std::string out;
    Status s = store.Get(*MakeKey("t1", digest), [&](std::string_view c) {
      out.append(c);
      return Status::OK();
    });
    return s.ok() ? out : "<" + s.ToString() + ">";
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  // A READY snapshot over blobs a and b, every object replicated.
  int64_t ReadySnapshot(std::string* a, std::string* b) {
    *a = cas_->Blob("alpha, replicated");
    *b = cas_->Blob("bravo, replicated too");
    std::string root = cas_->Manifest({cas_->E("a", *a), cas_->E("b", *b)});
    for (const std::string& d : {*a, *b, root}) Replicate(d);
    int64_t id = cas_->Snapshot(root);
    ctx_->NextJob();
    EXPECT_EQ(ResultField(handlers::ValidateSnapshot(*ctx_, {id}), "verdict"),
              "ready");
    return id;
  }
  double Repairs(const char* result) {
    return obs::testing::Read(ctx_->counted(), obs::MetricId::kRepairs,
                              {result});
  }
  std::string AuditOf(const std::string& digest, const char* field) {
    return db_.Scalar(
        "SELECT event || ':' || (data->>$2) FROM awc.audit_events WHERE "
        "subject = 'object/' || $1 ORDER BY id DESC LIMIT 1",
        {digest, field});
  }

  TestDatabase db_;
  std::unique_ptr<S3Server> replica_server_;
  ObjectStore* replica_fill_ = nullptr;
  std::unique_ptr<ObjectStore> replica_;
  ObjectStore* primary_ = nullptr;
  std::unique_ptr<CasFixture> cas_;
  std::unique_ptr<TestContext> ctx_;
};

// file:// + s3://: a validation that finds an object lost from a file://
// store restores it from the s3:// replica and makes the snapshot READY.
TEST_F(RepairTest, ValidationRepairsAFileStoreFromAnS3Replica) {
  TempDir dir;
  auto file = NewFileStore(dir.path());
  ASSERT_TRUE(file.ok());
  UsePrimary(file->get());
  std::string lost = cas_->Blob("lost from the disk");
  std::string kept = cas_->Blob("still on the disk");
  std::string root =
      cas_->Manifest({cas_->E("lost", lost), cas_->E("kept", kept)});
  Replicate(lost);
  std::string path = dir.path() + "/" + RelativeKey({"t1", lost});
  ASSERT_EQ(unlink(path.c_str()), 0);
  int64_t id = cas_->Snapshot(root);

  queue::Outcome o = handlers::ValidateSnapshot(*ctx_, {id});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "ready") << o.result;
  EXPECT_NE(o.result.find(lost), std::string::npos) << o.result;
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(Bytes(*primary_, lost), "lost from the disk");
  EXPECT_EQ(AuditOf(lost, "found_by"), "object.repaired:snapshot_validate");
  EXPECT_EQ(Repairs("repaired"), 1);
  // The replica is only read.
  EXPECT_TRUE(replica_->Put(*MakeKey("t1", kept), "x").IsFailedPrecondition());
}

// s3:// + s3://: a scrub that finds decay restores the object from the
// second server; the snapshot never leaves READY, and its scrub event
// names the repair.
TEST_F(RepairTest, ScrubRepairsFromASecondS3ServerAndStaysReady) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  ASSERT_TRUE(primary_->Put(*MakeKey("t1", b), "bravo, decayed!!!!!!").ok());
  ctx_->NextJob();
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id, 0});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "clean") << o.result;
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(Bytes(*primary_, b), "bravo, replicated too");
  EXPECT_EQ(db_.Scalar("SELECT data->'repaired'->>0 FROM awc.audit_events "
                       "WHERE event = 'snapshot.scrub' ORDER BY id DESC "
                       "LIMIT 1"),
            b);
  EXPECT_EQ(Repairs("repaired"), 1);
}

TEST_F(RepairTest, AReplicaWithoutTheObjectLeavesTheSnapshotDegraded) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  ASSERT_TRUE((*replica_fill_->DeleteMany({*MakeKey("t1", b)}))[0].ok());
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", b)}))[0].ok());
  ctx_->NextJob();
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id, 0});
  EXPECT_EQ(ResultField(o, "verdict"), "degraded") << o.result;
  EXPECT_EQ(SnapState(id), "DEGRADED");
  EXPECT_EQ(AuditOf(b, "result"), "object.repair_failed:absent");
  EXPECT_EQ(Repairs("absent"), 1);
}

// The replica is not trusted: bytes that are not the object repair
// nothing, reach no store, and are reported.
TEST_F(RepairTest, AReplicaServingCorruptBytesRepairsNothing) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  ASSERT_TRUE(
      replica_fill_->Put(*MakeKey("t1", b), "bravo, rotten there!").ok());
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", b)}))[0].ok());
  ctx_->NextJob();
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id, 0});
  EXPECT_EQ(ResultField(o, "verdict"), "degraded") << o.result;
  EXPECT_EQ(SnapState(id), "DEGRADED");
  EXPECT_TRUE(primary_->Head(*MakeKey("t1", b)).status().IsNotFound());
  EXPECT_EQ(AuditOf(b, "result"), "object.repair_failed:corrupt");
  EXPECT_EQ(Repairs("corrupt"), 1);
}

// A replica that is down is a transient error: the job retries and the
// snapshot is left as it was; once it is back, the retry repairs.
TEST_F(RepairTest, AReplicaThatIsDownMakesTheJobRetry) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", a)}))[0].ok());
  replica_server_->Kill();
  ctx_->NextJob();
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id, 0});
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kRetry) << o.result;
  EXPECT_EQ(SnapState(id), "READY");
  ASSERT_TRUE(replica_server_->Restart());
  ctx_->NextJob();
  o = handlers::ScrubSnapshot(*ctx_, {id, 0});
  EXPECT_EQ(ResultField(o, "verdict"), "clean") << o.result << o.error;
  EXPECT_EQ(Bytes(*primary_, a), "alpha, replicated");
}

// Repair never resurrects an object GC is deleting.
TEST_F(RepairTest, ARowGcIsDeletingIsLeftAlone) {
  UsePrimary(Open());
  std::string doomed = cas_->Blob("garbage GC has marked");
  Replicate(doomed);
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", doomed)}))[0].ok());
  db_.Exec("UPDATE awc.objects SET state = 'DELETING' WHERE digest = $1",
           {doomed});
  auto r = handlers::RepairObject(*ctx_, {.tenant = "t1",
                                          .digest = doomed,
                                          .size = 21,
                                          .found_by = "test",
                                          .snapshot = std::nullopt});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, handlers::RepairResult::kRefused);
  EXPECT_TRUE(primary_->Head(*MakeKey("t1", doomed)).status().IsNotFound());
  EXPECT_EQ(Repairs("refused"), 1);
}

// Degraded without a repair store, then scrubbed with one: every object
// good again, the snapshot is READY, its degradation's pins are gone and
// its history says so.
TEST_F(RepairTest, ADegradedSnapshotIsRestoredOnceRepaired) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", a)}))[0].ok());
  ctx_->set_repair_store(nullptr);
  ctx_->NextJob();
  EXPECT_EQ(ResultField(handlers::ScrubSnapshot(*ctx_, {id, 0}), "verdict"),
            "degraded");
  ASSERT_EQ(SnapState(id), "DEGRADED");
  ASSERT_GT(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1",
                    {std::to_string(id)}),
            0);
  // Without a repair store a degraded snapshot is not scrubbed again.
  ctx_->NextJob();
  EXPECT_EQ(ResultField(handlers::ScrubSnapshot(*ctx_, {id, 0}), "verdict"),
            "skipped");

  ctx_->set_repair_store(replica_.get());
  ctx_->NextJob();
  queue::Outcome o = handlers::ScrubSnapshot(*ctx_, {id, 3600});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "restored") << o.result;
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(db_.Scalar("SELECT failure IS NULL FROM awc.snapshots WHERE id = "
                       "$1",
                       {std::to_string(id)}),
            "t");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_pins WHERE snapshot_id = $1",
                    {std::to_string(id)}),
            0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE damaged_at IS "
                    "NOT NULL"),
            0);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(data->>'verdict', ',' ORDER BY id) "
                       "FROM awc.audit_events WHERE event = 'snapshot.scrub'"),
            "degraded,restored");
}

// Reconciliation finds an object gone from the bucket and restores it
// before anything is degraded.
TEST_F(RepairTest, ReconciliationRepairsWhatTheStoreLost) {
  UsePrimary(Open());
  std::string a, b;
  int64_t id = ReadySnapshot(&a, &b);
  cas_->AgeAll(60);
  ASSERT_TRUE((*primary_->DeleteMany({*MakeKey("t1", b)}))[0].ok());
  ctx_->NextJob();
  queue::Outcome o = handlers::ReconcileTenant(*ctx_, {"t1"});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "missing"), "1");
  EXPECT_EQ(ResultField(o, "repaired"), "1");
  EXPECT_EQ(ResultField(o, "degraded"), "0");
  EXPECT_EQ(SnapState(id), "READY");
  EXPECT_EQ(Bytes(*primary_, b), "bravo, replicated too");
  EXPECT_EQ(AuditOf(b, "found_by"), "object.repaired:store_reconcile");
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
