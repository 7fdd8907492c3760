// store_reconcile against a real database and a file:// store, its attempts
// claimed and recorded through the real queue: an attempt that fails leaves
// the tenant's run to the job's next attempt, which takes it over instead
// of being deferred by it, so the job's last_error is the failure itself;
// a run another job holds still defers (docs/store.md, "Reconciliation";
// docs/handlers.md, "store_reconcile").
#include "handlers/store_reconcile.h"

#include <errno.h>
#include <gtest/gtest.h>

#include "queue/job_queue.h"
#include "store/file_store.h"
#include "testing/fault_env.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

class ReconcileHandlerTest : public ::testing::Test {
 protected:
  ReconcileHandlerTest() : env_(Env::Default()) {
    auto st = store::NewFileStore(dir_.path(), &env_);
    EXPECT_TRUE(st.ok()) << st.status().message();
    store_ = std::move(*st);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    conn_ = db_.Connect("w-1");
    queue_ = std::make_unique<queue::JobQueue>(conn_.get(), "w-1", 30, &rng_);
    EXPECT_TRUE(queue_->Prepare().ok());
    ctx_ = std::make_unique<TestContext>(db_, *store_);
  }

  // Claims the job (made ready now, whatever its backoff said), runs the
  // handler as that claim and records its outcome.
  queue::Outcome Attempt(int64_t id) {
    db_.Exec("UPDATE awc.jobs SET run_at = now() WHERE id = $1",
             {std::to_string(id)});
    Result<std::optional<queue::Job>> job = queue_->Claim();
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    if (!job.ok() || !job->has_value()) return queue::Outcome::Retry("none");
    EXPECT_EQ((*job)->id, id);
    ctx_->set_job(**job);
    queue::Outcome o =
        handlers::ReconcileTenant(*ctx_, handlers::TenantPayload{"t1"});
    Result<queue::Finished> done = queue_->Finish(**job, o, false);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return o;
  }
  std::string Job(int64_t id, const char* column) {
    return db_.Scalar(
        std::string("SELECT ") + column + " FROM awc.jobs WHERE id = $1",
        {std::to_string(id)});
  }

  TestDatabase db_;
  TempDir dir_;
  FaultEnv env_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CasFixture> cas_;
  queue::Xorshift32 rng_ = queue::Xorshift32::FromWorkerId("w-1");
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
  std::unique_ptr<TestContext> ctx_;
};

TEST_F(ReconcileHandlerTest, ARetryTakesOverItsOwnRunAndKeepsTheRealError) {
  cas_->Blob("registered");
  cas_->Blob("registered too");
  int64_t id = db_.Enqueue("store_reconcile", R"({"tenant_id": "t1"})");

  // The store's listing fails (a dying disk): the attempt is retried with
  // the store's error, after it opened the tenant's run.
  env_.FailFrom(FaultEnv::Op::kListDir, 1, EIO);
  queue::Outcome first = Attempt(id);
  ASSERT_EQ(first.kind, queue::Outcome::Kind::kRetry) << first.error;
  EXPECT_EQ(first.error.find("held by"), std::string::npos) << first.error;
  EXPECT_EQ(Job(id, "last_error"), first.error);
  EXPECT_EQ(db_.Scalar("SELECT state FROM awc.reconcile_runs"), "RUNNING");

  // The next attempt of the same job is not deferred by the run its first
  // attempt left open: it takes it over, meets the same failure, and that
  // failure is what the job shows, with the attempt spent.
  queue::Outcome second = Attempt(id);
  EXPECT_EQ(second.kind, queue::Outcome::Kind::kRetry)
      << "deferred: " << second.error;
  EXPECT_EQ(second.error, first.error);
  EXPECT_EQ(Job(id, "state"), "PENDING");
  EXPECT_EQ(Job(id, "attempts"), "2");
  EXPECT_EQ(Job(id, "last_error"), first.error);
  EXPECT_EQ(db_.Scalar("SELECT holder FROM awc.reconcile_runs"),
            "job_" + std::to_string(id) + "/lease_" + Job(id, "lease_token"));

  // Once the store lists again, the third attempt finishes the run.
  env_.Reset();
  queue::Outcome third = Attempt(id);
  ASSERT_EQ(third.kind, queue::Outcome::Kind::kComplete) << third.error;
  EXPECT_EQ(ResultField(third, "resumed"), "true");
  EXPECT_EQ(ResultField(third, "objects"), "2");
  EXPECT_EQ(Job(id, "state"), "COMPLETED");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.reconcile_runs WHERE state = "
                    "'COMPLETED'"),
            1);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.reconcile_runs"), 1);
}

TEST_F(ReconcileHandlerTest, ARunAnotherJobHoldsStillDefers) {
  cas_->Blob("registered");
  int64_t first = db_.Enqueue("store_reconcile", R"({"tenant_id": "t1"})");
  env_.FailFrom(FaultEnv::Op::kListDir, 1, EIO);
  ASSERT_EQ(Attempt(first).kind, queue::Outcome::Kind::kRetry);
  env_.Reset();
  std::string holder = db_.Scalar(
      "SELECT holder FROM awc.reconcile_runs WHERE state = "
      "'RUNNING'");

  // Another job of the tenant while the first one's run is held.
  db_.Exec(
      "UPDATE awc.jobs SET run_at = now() + interval '1 hour' WHERE id "
      "= $1",
      {std::to_string(first)});
  int64_t other = db_.Enqueue("store_reconcile", R"({"tenant_id": "t1"})");
  queue::Outcome o = Attempt(other);
  ASSERT_EQ(o.kind, queue::Outcome::Kind::kDefer) << o.error;
  EXPECT_EQ(o.error, "the tenant's reconciliation is held by " + holder);
  EXPECT_EQ(Job(other, "attempts"), "0");
  EXPECT_EQ(db_.Scalar("SELECT holder FROM awc.reconcile_runs"), holder);
}

}  // namespace
}  // namespace awc::testing
