// A property test of the GC's safety: random interleavings of imports with
// dedup, validations, releases, the passing of time and GC epochs (with
// producer actions injected between the epoch's steps). After every step,
// every VALIDATING, READY and DEGRADED snapshot's closure must be fully
// present in the store.
#include <gtest/gtest.h>

#include <random>

#include "cas/closure.h"
#include "cli/importer.h"
#include "gc/sweep_testing.h"
#include "handlers/snapshot_validate.h"
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
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('p')");
  for (int round = 0; round < 120; ++round) {
    int op = Pick(20);
    if (op < 7) {
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
}

INSTANTIATE_TEST_SUITE_P(Seeds, GcPropertyTest, ::testing::Values(1u, 2u, 3u));

}  // namespace
}  // namespace awc::testing
