// A property test of the GC's safety: random interleavings of imports with
// dedup, validations, releases, the passing of time and GC epochs (with
// producer actions injected between the epoch's steps). After every step,
// every VALIDATING, READY and DEGRADED snapshot's closure must be fully
// present in the store.
//
// The store's layout is hostile (docs/gc.md, "The file store's layout"):
// tenant "h"'s directory is a link to tenant "p"'s, and every fan-out of
// tenant "f" a link to p's, and their inventories come to name objects of
// p's that the links make reachable. Reconciling and collecting h and f
// must never register or delete anything of p's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "cas/closure.h"
#include "cli/importer.h"
#include "gc/sweep_testing.h"
#include "handlers/snapshot_validate.h"
#include "reconcile/reconcile.h"
#include "store/file_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

constexpr int64_t kGrace = 100;

class GcPropertyTest : public ::testing::TestWithParam<unsigned> {
 protected:
  GcPropertyTest() : rng_(GetParam()) {
    db_.Migrate();
    auto st = store::NewFileStore(dir_.path());
    EXPECT_TRUE(st.ok()) << st.status().message();
    store_ = std::move(*st);
    handlers::HandlerOptions o;
    o.sweep.grace_secs = kGrace;
    o.sweep.batch_size = 7;
    o.sweep.canary_size = 2;
    ctx_ = std::make_unique<TestContext>(db_, *store_, o);
    for (int i = 0; i < 24; ++i)
      pool_.push_back("content-" + std::to_string(i));
    // The hostile layout, made before p has a file: the links dangle until
    // p's directories appear.
    EXPECT_EQ(symlink("p", (dir_.path() + "/h").c_str()), 0);
    std::filesystem::create_directories(dir_.path() + "/f/sha256");
    for (int i = 0; i < 256; ++i) {
      char fanout[3];
      snprintf(fanout, sizeof fanout, "%02x", i);
      EXPECT_EQ(symlink(("../../p/sha256/" + std::string(fanout)).c_str(),
                        (dir_.path() + "/f/sha256/" + fanout).c_str()),
                0);
    }
  }

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A producer: imports a random tree drawn from the shared content pool,
  // so most objects are deduplicated against earlier imports.
  void Import() {
    TempDir tree;
    int files = 1 + Pick(6);
    for (int i = 0; i < files; ++i) {
      std::string dir = Pick(2) ? "d" + std::to_string(Pick(3)) + "/" : "";
      tree.Write(dir + "f" + std::to_string(i), pool_[Pick(pool_.size())]);
    }
    cli::ImportOptions opt;
    opt.tenant_id = "p";
    opt.dir = tree.path();
    opt.deleting_wait_secs = 0.1;
    auto conn = db_.Connect("producer");
    auto r = cli::ImportTree(*conn, *store_, opt);
    // Refused while GC holds an object DELETING: the producer retries later.
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsTransient()) << r.status().message();
    }
  }

  void Validate() {
    std::string id = db_.Scalar(
        "SELECT id FROM awc.snapshots WHERE state = 'VALIDATING' ORDER BY "
        "random() LIMIT 1");
    if (id.empty()) return;
    queue::Outcome o = handlers::ValidateSnapshot(
        *ctx_, handlers::SnapshotPayload{std::stoll(id)});
    // Retried when a closure object is being deleted right now.
    EXPECT_TRUE(o.kind == queue::Outcome::Kind::kComplete ||
                o.kind == queue::Outcome::Kind::kRetry)
        << o.error;
    if (o.kind == queue::Outcome::Kind::kComplete) {
      EXPECT_EQ(ResultField(o, "verdict"), "ready") << o.result;
    }
  }

  void Release() {
    db_.Exec(
        "UPDATE awc.snapshots SET state = 'RELEASED', released_at = now() "
        "WHERE id = (SELECT id FROM awc.snapshots WHERE state = 'READY' "
        "ORDER BY random() LIMIT 1)");
  }

  // The inventory of h or f comes to name some of p's objects (old, so
  // that GC plans them), as an inventory restored beside a hostile layout
  // would.
  void HostileRows() {
    db_.Exec(
        "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
        "last_seen_at) SELECT $1, digest, size, created_at - interval '1 "
        "day', last_seen_at - interval '1 day' FROM awc.objects WHERE "
        "tenant_id = 'p' ORDER BY random() LIMIT 3 ON CONFLICT DO NOTHING",
        {Pick(2) ? "h" : "f"});
  }

  // A reconciliation or a GC epoch of h or f: it may fail (the layout is
  // an error an operator must mend), but never registers or deletes an
  // object of p's.
  void HostileMaintenance() {
    const std::string tenant = Pick(2) ? "h" : "f";
    auto conn = db_.Connect("hostile");
    if (Pick(2)) {
      reconcile::ReconcileOptions o;
      o.grace_secs = 0;
      o.holder = "prop-reconcile";
      auto r = reconcile::RunReconcile(*conn, *store_, tenant, o,
                                       [] { return Status::OK(); });
      if (r.ok()) {
        EXPECT_EQ(r->objects, 0) << tenant;
        EXPECT_EQ(r->orphans, 0) << tenant;
      }
      return;
    }
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.batch_size = 7;
    o.canary_size = 2;
    o.holder = "prop-hostile";
    auto r = gc::RunSweepWithHooks(*conn, *store_, tenant, o, nullptr, {});
    if (r.ok()) {
      EXPECT_EQ(r->deleted, 0) << tenant;
    } else {
      EXPECT_TRUE(r.status().IsFailedPrecondition()) << r.status().message();
    }
  }

  void PassTime() {
    std::string secs = std::to_string(Pick(2 * kGrace));
    db_.Exec(
        "UPDATE awc.objects SET created_at = created_at - make_interval("
        "secs => $1), last_seen_at = last_seen_at - make_interval(secs => "
        "$1)",
        {secs});
    db_.Exec(
        "UPDATE awc.snapshots SET created_at = created_at - make_interval("
        "secs => $1)",
        {secs});
  }

  // One producer action, injected between GC steps.
  Status Interfere() {
    switch (Pick(4)) {
      case 0:
        Import();
        break;
      case 1:
        Validate();
        break;
      case 2:
        Release();
        break;
      default:
        break;
    }
    return Status::OK();
  }

  void Sweep() {
    // Mostly the fleet keeps up with validation; sometimes a VALIDATING
    // snapshot older than the grace makes GC refuse to plan. A validation
    // that reaches an object a crashed sweeper left DELETING retries until
    // a sweep resumes that epoch: a bounded number of tries, then the
    // sweep.
    if (Pick(10) < 7) {
      for (int tries = 0;
           tries < 50 && !HasFailure() &&
           db_.Int("SELECT count(*) FROM awc.snapshots WHERE state = "
                   "'VALIDATING'") > 0;
           ++tries) {
        Validate();
      }
    }
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.batch_size = 7;
    o.canary_size = 2;
    o.holder = "prop";
    gc::SweepHooks hooks;
    hooks.after_plan = [this](int64_t) { return Interfere(); };
    hooks.after_mark = [this](int64_t) { return Interfere(); };
    hooks.after_store_delete = [this](int64_t) {
      // Sometimes the sweeper "crashes" here; the next one resumes.
      return Pick(5) == 0 ? Status::Internal("crash") : Interfere();
    };
    auto conn = db_.Connect("gc");
    auto r = gc::RunSweepWithHooks(*conn, *store_, "p", o, nullptr, hooks);
    if (r.ok()) {
      EXPECT_NE(gc::VerdictName(r->verdict), std::string("aborted"))
          << r->reason;
    } else {
      EXPECT_TRUE(r.status().message() == "crash" || r.status().IsTransient())
          << r.status().message();
    }
  }

  // The property.
  void CheckLiveClosuresPresent(int round) {
    auto conn = db_.Connect("check");
    auto snaps = conn->Exec(
        "SELECT id, root_digest, state FROM awc.snapshots WHERE state IN "
        "('VALIDATING', 'READY', 'DEGRADED')");
    ASSERT_TRUE(snaps.ok());
    for (int i = 0; i < snaps->rows(); ++i) {
      auto report = cas::WalkClosure(*store_, "p", snaps->GetString(i, 1),
                                     cas::ClosureLimits{}, nullptr);
      ASSERT_TRUE(report.ok()) << report.status().message();
      ASSERT_EQ(report->verdict, cas::Verdict::kOk)
          << "round " << round << ": snapshot " << snaps->GetString(i, 0)
          << " (" << snaps->GetString(i, 2) << ") lost " << report->digest
          << ": " << report->detail;
    }
  }

  TestDatabase db_;
  TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<TestContext> ctx_;
  std::mt19937 rng_;
  std::vector<std::string> pool_;
};

TEST_P(GcPropertyTest, LiveClosuresSurviveEveryInterleaving) {
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('p'), ('h'), ('f')");
  for (int round = 0; round < 120; ++round) {
    int op = Pick(23);
    if (op >= 20) {
      op == 20 ? HostileRows() : HostileMaintenance();
    } else if (op < 7) {
      Import();
    } else if (op < 11) {
      Validate();
    } else if (op < 13) {
      Release();
    } else if (op < 16) {
      PassTime();
    } else {
      Sweep();
    }
    CheckLiveClosuresPresent(round);
    if (HasFatalFailure()) return;
  }
  // The run exercised deletion, dedup and resumption, not just imports.
  EXPECT_GT(db_.Int("SELECT coalesce(sum(deleted_count), 0) FROM "
                    "awc.gc_epochs"),
            0);
  EXPECT_GT(db_.Int("SELECT count(*) FROM awc.snapshots WHERE state = 'READY'"),
            0);
  // At the end, for certain: both hostile tenants' inventories name p's
  // objects, and their epochs get as far as deleting, and fail there.
  for (const char* tenant : {"h", "f"}) {
    db_.Exec(
        "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
        "last_seen_at) SELECT $1, digest, size, now() - interval '1 day', "
        "now() - interval '1 day' FROM awc.objects WHERE tenant_id = 'p' "
        "ON CONFLICT DO NOTHING",
        {tenant});
    gc::SweepOptions o;
    o.grace_secs = kGrace;
    o.holder = "prop-hostile";
    auto conn = db_.Connect("hostile");
    auto r = gc::RunSweepWithHooks(*conn, *store_, tenant, o, nullptr, {});
    ASSERT_FALSE(r.ok()) << tenant << " deleted " << r->deleted;
    EXPECT_TRUE(r.status().IsFailedPrecondition()) << r.status().message();
    EXPECT_GT(db_.Int("SELECT count(*) FROM awc.objects WHERE tenant_id = $1 "
                      "AND state = 'DELETING'",
                      {tenant}),
              0);
  }
  CheckLiveClosuresPresent(-1);
}

INSTANTIATE_TEST_SUITE_P(Seeds, GcPropertyTest, ::testing::Values(1u, 2u, 3u));

}  // namespace
}  // namespace awc::testing
