// gc_sweep against a real database and store: what is deleted and what
// survives, dry run, batch and canary, the lock, crash and resume.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "gc/sweep_testing.h"
#include "handlers/gc_sweep.h"
#include "store/memory_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

constexpr int64_t kGrace = 3600;
constexpr int64_t kOld = 2 * kGrace;

class GcTest : public ::testing::Test {
 protected:
  GcTest() : store_(store::NewMemoryStore()), cas_(db_, *store_, "t1") {
    db_.Migrate();
    handlers::HandlerOptions o;
    o.sweep.grace_secs = kGrace;
    o.sweep.batch_size = 1000;
    o.sweep.canary_size = 10;
    ctx_ = std::make_unique<TestContext>(db_, *store_, o);
  }

  gc::SweepOptions Options() {
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.batch_size = ctx_->options().sweep.batch_size;
    o.canary_size = ctx_->options().sweep.canary_size;
    o.dry_run = ctx_->options().sweep.dry_run;
    o.holder = "test-" + std::to_string(++holders_);
    return o;
  }
  Result<gc::SweepReport> Sweep(const gc::SweepHooks& hooks = {}) {
    return gc::RunSweepWithHooks(ctx_->db(), *store_, "t1", Options(), nullptr,
                                 hooks);
  }
  bool InStore(const std::string& digest) {
    auto key = store::MakeKey("t1", digest);
    return store_->Head(*key).ok();
  }
  bool InInventory(const std::string& digest) {
    return db_.Int(
               "SELECT count(*) FROM awc.objects WHERE tenant_id = 't1' "
               "AND digest = $1",
               {digest}) == 1;
  }
  bool Present(const std::string& digest) {
    return InStore(digest) && InInventory(digest);
  }
  bool Gone(const std::string& digest) {
    return !InStore(digest) && !InInventory(digest);
  }
  // A snapshot in `state` whose closure is recorded (as validation does).
  int64_t WithClosure(const std::string& state,
                      const std::vector<std::string>& digests) {
    int64_t id = cas_.Snapshot(digests.front(), state);
    for (const std::string& d : digests) {
      db_.Exec(
          "INSERT INTO awc.snapshot_objects (snapshot_id, digest) VALUES "
          "($1, $2)",
          {std::to_string(id), d});
    }
    return id;
  }
  // A sweep now, held by a snapshot VALIDATING for longer than the grace:
  // its epoch ends REFUSED, naming `snapshot`, with what earlier attempts
  // marked deleted and the rest of its candidates kept.
  void ExpectStoppedBy(int64_t snapshot) {
    auto stopped = Sweep();
    ASSERT_TRUE(stopped.ok()) << stopped.status().message();
    EXPECT_EQ(gc::VerdictName(stopped->verdict), std::string("refused"));
    EXPECT_NE(stopped->reason.find(std::to_string(snapshot)), std::string::npos)
        << stopped->reason;
    EXPECT_EQ(db_.Scalar("SELECT state FROM awc.gc_epochs ORDER BY id DESC "
                         "LIMIT 1"),
              "REFUSED");
    EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_candidates WHERE state "
                      "IN ('PLANNED', 'DELETING')"),
              0);
  }

  int64_t StaleValidating(const std::string& root) {
    int64_t id = cas_.Snapshot(root, "VALIDATING");
    db_.Exec(
        "UPDATE awc.snapshots SET created_at = now() - make_interval(secs "
        "=> $2) WHERE id = $1",
        {std::to_string(id), std::to_string(kOld)});
    return id;
  }
  std::vector<std::string> Garbage(int n, const std::string& tag) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(cas_.Blob(tag + std::to_string(i)));
      cas_.Age(out.back(), kOld + i);  // older first: the lower i, the later
    }
    return out;
  }

  TestDatabase db_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  std::unique_ptr<TestContext> ctx_;
  int holders_ = 0;
};

TEST_F(GcTest, DeletesOnlyUnreferencedObjectsOlderThanTheGrace) {
  std::string old_garbage = cas_.Blob("old garbage");
  std::string young_garbage = cas_.Blob("young garbage");
  std::string ready = cas_.Blob("ready"),
              validating_root = cas_.Blob("validating");
  std::string degraded = cas_.Blob("degraded"), pinned = cas_.Blob("pinned");
  std::string released = cas_.Blob("released"), failed = cas_.Blob("failed");
  WithClosure("READY", {ready});
  cas_.Snapshot(validating_root, "VALIDATING");  // young: closure unknown
  WithClosure("DEGRADED", {degraded});
  WithClosure("RELEASED", {released});
  WithClosure("FAILED", {failed});
  db_.Exec(
      "INSERT INTO awc.gc_pins (tenant_id, digest, reason) VALUES ('t1', "
      "$1, 'operator')",
      {pinned});
  cas_.AgeAll(kOld);
  cas_.Age(young_garbage, 60);

  auto r = Sweep();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(gc::VerdictName(r->verdict), std::string("completed"));
  EXPECT_EQ(r->planned, 3);
  EXPECT_EQ(r->deleted, 3);
  for (const auto& d : {old_garbage, released, failed})
    EXPECT_TRUE(Gone(d)) << d;
  for (const auto& d :
       {young_garbage, ready, validating_root, degraded, pinned}) {
    EXPECT_TRUE(Present(d)) << d;
  }
  EXPECT_EQ(db_.Scalar("SELECT state || '/' || deleted_count || '/' || "
                       "deleted_bytes FROM awc.gc_epochs WHERE id = $1",
                       {std::to_string(r->epoch_id)}),
            "COMPLETED/3/" + std::to_string(11 + 8 + 6));
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' || '/' || (data->>'deleted') "
                       "FROM awc.audit_events WHERE event = 'gc.epoch'"),
            "completed/3");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_locks"), 0);
}

TEST_F(GcTest, ObjectTouchedByDedupAfterPlanningSurvives) {
  auto garbage = Garbage(3, "g");
  gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) {
    // A producer deduplicates against garbage[1] after the plan.
    db_.Exec("UPDATE awc.objects SET last_seen_at = now() WHERE digest = $1",
             {garbage[1]});
    return Status::OK();
  };
  auto r = Sweep(hooks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->planned, 3);
  EXPECT_EQ(r->deleted, 2);
  EXPECT_EQ(r->kept, 1);
  EXPECT_TRUE(Present(garbage[1]));
  EXPECT_TRUE(Gone(garbage[0]));
  EXPECT_TRUE(Gone(garbage[2]));
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.gc_candidates WHERE digest = $1",
                       {garbage[1]}),
            "KEPT");
}

TEST_F(GcTest, ObjectReferencedAfterPlanningSurvives) {
  auto garbage = Garbage(2, "g");
  gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) {
    WithClosure("READY", {garbage[0]});
    return Status::OK();
  };
  auto r = Sweep(hooks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(Present(garbage[0]));
  EXPECT_TRUE(Gone(garbage[1]));
}

TEST_F(GcTest, DryRunRecordsThePlanAndDeletesNothing) {
  auto garbage = Garbage(5, "g");
  ctx_->mutable_options().sweep.dry_run = true;
  queue::Outcome o =
      handlers::SweepTenant(*ctx_, handlers::TenantPayload{"t1"});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "dry_run");
  EXPECT_EQ(ResultField(o, "planned"), "5");
  EXPECT_EQ(ResultField(o, "deleted"), "0");
  for (const auto& d : garbage) EXPECT_TRUE(Present(d));
  EXPECT_EQ(db_.Scalar("SELECT state || '/' || dry_run || '/' || planned_count "
                       "FROM awc.gc_epochs"),
            "COMPLETED/true/5");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_candidates"), 5);
}

TEST_F(GcTest, BatchAndCanaryLimitsHold) {
  auto garbage = Garbage(25, "g");  // garbage[24] is the oldest
  ctx_->mutable_options().sweep.batch_size = 10;
  ctx_->mutable_options().sweep.canary_size = 3;
  int canary_checks = 0;
  int64_t deleted_at_canary = -1;
  gc::SweepHooks hooks;
  hooks.before_canary_check = [&](int64_t) {
    ++canary_checks;
    deleted_at_canary = 25 - db_.Int("SELECT count(*) FROM awc.objects");
    return Status::OK();
  };
  auto r = Sweep(hooks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->planned, 25);
  EXPECT_EQ(r->deleted, 10);
  EXPECT_EQ(canary_checks, 1);
  EXPECT_EQ(deleted_at_canary, 3);
  // Oldest first.
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(Gone(garbage[i]), i >= 15) << i;
  }
  // The next epochs take the rest.
  ASSERT_TRUE(Sweep().ok());
  auto last = Sweep();
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->planned, 5);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 0);
}

TEST_F(GcTest, CanaryThatHitsALiveDigestAbortsTheEpoch) {
  auto garbage = Garbage(8, "g");
  ctx_->mutable_options().sweep.canary_size = 2;
  gc::SweepHooks hooks;
  hooks.before_canary_check = [&](int64_t epoch) {
    // Inject the bug the canary exists for: a live closure that references
    // a digest the plan thought unreferenced.
    std::string victim = db_.Scalar(
        "SELECT digest FROM awc.gc_candidates WHERE epoch_id = $1 AND state = "
        "'DELETED' LIMIT 1",
        {std::to_string(epoch)});
    WithClosure("READY", {victim});
    return Status::OK();
  };
  auto r = Sweep(hooks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(gc::VerdictName(r->verdict), std::string("aborted"));
  EXPECT_EQ(r->deleted, 2);
  EXPECT_EQ(r->kept, 6);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 6);
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.gc_epochs WHERE id = $1",
                       {std::to_string(r->epoch_id)}),
            "ABORTED");
  EXPECT_NE(r->reason.find("canary"), std::string::npos);
  EXPECT_EQ(db_.Scalar("SELECT data->>'verdict' FROM awc.audit_events WHERE "
                       "event = 'gc.epoch'"),
            "aborted");
  // Nothing is left open: the next sweep plans afresh.
  auto next = Sweep();
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->resumed);
}

// A producer may upload a deleted object again as soon as its row is
// gone, and a new snapshot may then reach it: live now, but whole. The
// canary lets that pass, and still stops the epoch for a digest that has
// a LIVE row again but is not in the store (someone registered it without
// uploading it: the row lies).
TEST_F(GcTest, CanaryTellsAnObjectUploadedAgainFromALiveObjectDeleted) {
  ctx_->mutable_options().sweep.canary_size = 2;
  for (bool upload : {true, false}) {
    SCOPED_TRACE(upload ? "uploaded again" : "registered, not uploaded");
    std::string tag = upload ? "u" : "r";
    auto garbage = Garbage(8, tag);
    std::map<std::string, std::string> bytes;
    for (int i = 0; i < 8; ++i) bytes[garbage[i]] = tag + std::to_string(i);
    gc::SweepHooks hooks;
    hooks.before_canary_check = [&](int64_t epoch) {
      std::string again = db_.Scalar(
          "SELECT digest FROM awc.gc_candidates WHERE epoch_id = $1 AND "
          "state = 'DELETED' ORDER BY seq LIMIT 1",
          {std::to_string(epoch)});
      if (upload) {
        EXPECT_TRUE(
            store_->Put(*store::MakeKey("t1", again), bytes[again]).ok());
      }
      db_.Exec(
          "INSERT INTO awc.objects (tenant_id, digest, size) VALUES ('t1', "
          "$1, $2)",
          {again, std::to_string(bytes[again].size())});
      WithClosure("READY", {again});
      return Status::OK();
    };
    auto r = Sweep(hooks);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(gc::VerdictName(r->verdict),
              std::string(upload ? "completed" : "aborted"))
        << r->reason;
    EXPECT_EQ(r->deleted, upload ? 8 : 2);
  }
}

TEST_F(GcTest, ConcurrentSweepOfTheSameTenantIsDeferred) {
  Garbage(2, "g");
  db_.Exec(
      "INSERT INTO awc.gc_locks (tenant_id, holder, expires_at) VALUES "
      "('t1', 'another-worker/job_1', now() + interval '5 minutes')");
  queue::Outcome o =
      handlers::SweepTenant(*ctx_, handlers::TenantPayload{"t1"});
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kDefer);
  EXPECT_GT(o.delay_secs, 0);
  EXPECT_NE(o.error.find("another-worker/job_1"), std::string::npos);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 2);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs"), 0);
  // An expired lock is taken over.
  db_.Exec("UPDATE awc.gc_locks SET expires_at = now() - interval '1 second'");
  o = handlers::SweepTenant(*ctx_, handlers::TenantPayload{"t1"});
  EXPECT_EQ(ResultField(o, "verdict"), "completed");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 0);
}

TEST_F(GcTest, TwoSweepsAtOnceOneRunsTheOtherIsDeferred) {
  auto garbage = Garbage(4, "g");
  TestContext second(db_, *store_, ctx_->options());
  second.NextJob();
  queue::Outcome during;
  gc::SweepHooks hooks;
  hooks.after_plan = [&](int64_t) {
    // A second worker's sweep of the same tenant, while the first holds
    // the lock mid-epoch.
    during = handlers::SweepTenant(second, handlers::TenantPayload{"t1"});
    return Status::OK();
  };
  auto first = Sweep(hooks);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(gc::VerdictName(first->verdict), std::string("completed"));
  EXPECT_EQ(first->deleted, 4);
  EXPECT_EQ(during.kind, queue::Outcome::Kind::kDefer) << during.result;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs"), 1);
}

TEST_F(GcTest, CrashBetweenStoreDeleteAndRowRemovalResumes) {
  auto garbage = Garbage(4, "g");
  gc::SweepHooks crash;
  crash.after_store_delete = [](int64_t) {
    return Status::Internal("simulated crash");
  };
  auto first = Sweep(crash);
  ASSERT_FALSE(first.ok());
  // The store lost the objects; the rows say DELETING.
  for (const auto& d : garbage) {
    EXPECT_FALSE(InStore(d));
    EXPECT_EQ(
        db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {d}),
        "DELETING");
  }
  auto second = Sweep();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->deleted, 4);
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs WHERE state = "
                    "'COMPLETED'"),
            1);
}

TEST_F(GcTest, AStalledSweeperDoesNotCompleteAnEpochAnotherOneFinished) {
  auto garbage = Garbage(4, "g");
  gc::SweepHooks stall;
  stall.after_mark = [&](int64_t) {
    // The first sweeper stalls past its lock's TTL; another one takes the
    // lock over, finishes the epoch, audits it and lets the lock go.
    db_.Exec("UPDATE awc.gc_locks SET expires_at = now() - interval '1 s'");
    auto other = Sweep();
    EXPECT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_TRUE(other.ok() && other->resumed);
    return Status::OK();
  };
  auto stalled = Sweep(stall);
  EXPECT_FALSE(stalled.ok()) << "completed an epoch it no longer held";
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs"), 1);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'gc.epoch'"),
            1);
}

// A sweeper that stalls (SIGSTOP, a slow store) after reading its batch and
// before deleting it from the store keeps the lock however long it stalls:
// no one else can finish the batch, so no producer can upload one of its
// objects again before this sweeper's late delete.
TEST_F(GcTest, AStalledSweeperKeepsTheLockWhileItDeletesABatch) {
  auto garbage = Garbage(4, "g");
  gc::SweepOptions o = Options();
  o.lock_ttl_secs = 0.3;
  gc::SweepHooks stall;
  gc::SweepReport other;
  stall.before_store_delete = [&](int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // > TTL
    auto conn = db_.Connect("other sweeper");
    auto r = gc::RunSweep(*conn, *store_, "t1", Options(), nullptr);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) other = *r;
    for (const auto& d : garbage) {
      EXPECT_TRUE(InStore(d)) << d;
      EXPECT_EQ(
          db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {d}),
          "DELETING");
    }
    return Status::OK();
  };
  auto stalled =
      gc::RunSweepWithHooks(ctx_->db(), *store_, "t1", o, nullptr, stall);
  EXPECT_EQ(gc::VerdictName(other.verdict), std::string("locked_out"));
  EXPECT_NE(other.reason.find("deleting a batch"), std::string::npos)
      << other.reason;
  ASSERT_TRUE(stalled.ok()) << stalled.status().ToString();
  EXPECT_EQ(gc::VerdictName(stalled->verdict), std::string("completed"));
  EXPECT_EQ(stalled->deleted, 4);
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs"), 1);
}

TEST_F(GcTest, CrashAfterPlanOrMarkResumes) {
  auto garbage = Garbage(6, "g");
  ctx_->mutable_options().sweep.canary_size = 2;
  gc::SweepHooks after_plan;
  after_plan.after_plan = [](int64_t) { return Status::Internal("crash"); };
  ASSERT_FALSE(Sweep(after_plan).ok());
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects"), 6);
  gc::SweepHooks after_mark;
  int marks = 0;
  after_mark.after_mark = [&](int64_t) {
    return ++marks == 2 ? Status::Internal("crash") : Status::OK();
  };
  ASSERT_FALSE(Sweep(after_mark).ok());
  auto done = Sweep();
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(done->resumed);
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d));
  EXPECT_EQ(db_.Scalar("SELECT deleted_count || '/' || canary_verified FROM "
                       "awc.gc_epochs"),
            "6/true");
}

TEST_F(GcTest, DeletingAnAlreadyMissingObjectIsFine) {
  auto garbage = Garbage(2, "g");
  auto key = store::MakeKey("t1", garbage[0]);
  ASSERT_TRUE(store_->DeleteMany({*key}).ok());
  auto r = Sweep();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deleted, 2);
  EXPECT_TRUE(Gone(garbage[0]));
  EXPECT_TRUE(Gone(garbage[1]));
}

TEST_F(GcTest, OldValidatingSnapshotRefusesThePlan) {
  auto garbage = Garbage(2, "g");
  int64_t stale = StaleValidating(cas_.Blob("root"));
  queue::Outcome o =
      handlers::SweepTenant(*ctx_, handlers::TenantPayload{"t1"});
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kComplete) << o.error;
  EXPECT_EQ(ResultField(o, "verdict"), "refused");
  EXPECT_NE(ResultField(o, "reason").find(std::to_string(stale)),
            std::string::npos);
  for (const auto& d : garbage) EXPECT_TRUE(Present(d));
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.gc_epochs"), "REFUSED");
}

// A validation that meets an object of a marked batch waits for GC (the
// object is being deleted); GC, resuming after a crash between marking and
// deleting, must not wait for that validation in turn: it finishes the
// marked batch, marks nothing more, and ends its epoch; the next epoch,
// once the validation is over, deletes the rest.
TEST_F(GcTest, AMarkedBatchIsDeletedEvenOnceAValidationHasAgedPastTheGrace) {
  auto garbage = Garbage(4, "g");
  ctx_->mutable_options().sweep.canary_size = 2;
  gc::SweepHooks crash_after_mark;
  crash_after_mark.after_mark = [](int64_t) {
    return Status::Internal("crash");
  };
  ASSERT_FALSE(Sweep(crash_after_mark).ok());
  std::vector<std::string> marked;
  for (const auto& d : garbage) {
    if (db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {d}) ==
        "DELETING") {
      marked.push_back(d);
    }
  }
  ASSERT_EQ(marked.size(), 2u);
  // A tree over a marked object (its root would be a live root to the
  // canary, which the stopped epoch still runs).
  int64_t stale = StaleValidating(cas_.Manifest({cas_.E("f", marked[0])}));

  ExpectStoppedBy(stale);
  for (const auto& d : garbage) {
    bool was_marked = d == marked[0] || d == marked[1];
    EXPECT_EQ(Gone(d), was_marked) << d;
    EXPECT_EQ(Present(d), !was_marked) << d;
  }
  EXPECT_EQ(db_.Scalar("SELECT deleted_count || ' ' || kept_count FROM "
                       "awc.gc_epochs"),
            "2 2");

  db_.Exec("UPDATE awc.snapshots SET state = 'FAILED' WHERE id = $1",
           {std::to_string(stale)});
  auto done = Sweep();
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_FALSE(done->resumed);
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d));
  EXPECT_EQ(db_.Scalar("SELECT string_agg(state || ' ' || deleted_count, "
                       "',' ORDER BY id) FROM awc.gc_epochs"),
            "REFUSED 2,COMPLETED 2");
}

// An epoch stopped by a validation before its canary was checked still
// checks what it deleted: here the stale snapshot's root is a deleted
// candidate, which the canary counts as a live object.
TEST_F(GcTest, AnEpochStoppedBeforeItsCanaryCheckStillChecksIt) {
  auto garbage = Garbage(4, "g");
  ctx_->mutable_options().sweep.canary_size = 2;
  gc::SweepHooks crash_after_mark;
  crash_after_mark.after_mark = [](int64_t) {
    return Status::Internal("crash");
  };
  ASSERT_FALSE(Sweep(crash_after_mark).ok());
  std::string marked = db_.Scalar(
      "SELECT min(digest) FROM awc.objects WHERE state = 'DELETING'");
  StaleValidating(marked);

  auto stopped = Sweep();
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_EQ(gc::VerdictName(stopped->verdict), std::string("aborted"));
  EXPECT_NE(stopped->reason.find(marked), std::string::npos) << stopped->reason;
  EXPECT_EQ(db_.Scalar("SELECT state || ' ' || deleted_count || ' ' || "
                       "kept_count FROM awc.gc_epochs"),
            "ABORTED 2 2");
}

// The same when the marked batch is not the first: an epoch that deleted
// its canary, marked its next batch and died, then waits for a validation
// that waits for that batch, still deletes it (found by the chaos suite).
TEST_F(GcTest, AMarkedLaterBatchIsDeletedOnceAValidationHasAgedPastTheGrace) {
  auto garbage = Garbage(6, "g");
  ctx_->mutable_options().sweep.canary_size = 2;
  int marks = 0;
  gc::SweepHooks crash_after_second_mark;
  crash_after_second_mark.after_mark = [&](int64_t) {
    return ++marks == 2 ? Status::Internal("crash") : Status::OK();
  };
  ASSERT_FALSE(Sweep(crash_after_second_mark).ok());
  std::vector<std::string> marked;
  int gone = 0;
  for (const auto& d : garbage) {
    std::string state =
        db_.Scalar("SELECT state FROM awc.objects WHERE digest = $1", {d});
    if (state == "DELETING") marked.push_back(d);
    gone += Gone(d) ? 1 : 0;
  }
  ASSERT_EQ(gone, 2);  // the canary
  ASSERT_EQ(marked.size(), 4u);
  int64_t stale = StaleValidating(marked[0]);

  ExpectStoppedBy(stale);
  for (const auto& d : garbage) EXPECT_TRUE(Gone(d)) << d;
  EXPECT_EQ(db_.Scalar("SELECT state || ' ' || deleted_count FROM "
                       "awc.gc_epochs"),
            "REFUSED 6");
}

TEST_F(GcTest, UnknownTenantIsDeadLettered) {
  queue::Outcome o =
      handlers::SweepTenant(*ctx_, handlers::TenantPayload{"nobody"});
  EXPECT_EQ(o.kind, queue::Outcome::Kind::kFail);
}

}  // namespace
}  // namespace awc::testing
