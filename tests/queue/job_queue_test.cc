// queue::JobQueue against the real database: what it reports about the
// jobs it records.
#include "queue/job_queue.h"

#include <gtest/gtest.h>

#include "queue/queue_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class JobQueueTest : public ::testing::Test {
 protected:
  JobQueueTest() {
    db_.Migrate();
    conn_ = db_.Connect("t-1");
    queue_ = std::make_unique<queue::JobQueue>(conn_.get(), "t-1", 30, &rng_);
    EXPECT_TRUE(queue_->Prepare().ok());
  }

  TestDatabase db_;
  queue::Xorshift32 rng_ = queue::Xorshift32::FromWorkerId("t-1");
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
};

TEST_F(JobQueueTest, LagCountsFromWhenTheJobCouldFirstRun) {
  // A producer's run_at far in the past does not make the job late: it
  // could not run before it was inserted. The lag is from insertion.
  int64_t id = db_.Int(
      "INSERT INTO awc.jobs (kind, run_at) VALUES ('k', '0001-01-01') "
      "RETURNING id");
  Result<std::optional<queue::Job>> job = queue_->Claim();
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_TRUE(job->has_value());
  EXPECT_EQ((*job)->id, id);
  Result<queue::Finished> done =
      queue_->Finish(**job, queue::Outcome::Complete("{}"), false);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_GE(done->recorded.lag_secs, 0);
  EXPECT_LT(done->recorded.lag_secs, 3600) << "lag counted from run_at";

  // The same for a job whose lease is reclaimed.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at, state, attempts, locked_by, "
      "locked_until, lease_token) VALUES ('k', '-infinity', 'RUNNING', 1, "
      "'t-9', now() - interval '1 minute', 5)");
  Result<std::vector<queue::Reclaimed>> reclaimed = queue_->Reclaim(10, 30);
  ASSERT_TRUE(reclaimed.ok()) << reclaimed.status().ToString();
  ASSERT_EQ(reclaimed->size(), 1u);
  EXPECT_GE((*reclaimed)[0].lag_secs, 0);
  EXPECT_LT((*reclaimed)[0].lag_secs, 3600);
}

TEST_F(JobQueueTest, LagOfAJobRunAtItsTimeCountsFromRunAt) {
  // A job inserted now to run in a moment: its lag starts at run_at.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at, created_at) VALUES ('k', now() - "
      "interval '10 seconds', now() - interval '100 seconds')");
  Result<std::optional<queue::Job>> job = queue_->Claim();
  ASSERT_TRUE(job.ok() && job->has_value());
  Result<queue::Finished> done =
      queue_->Finish(**job, queue::Outcome::Complete("{}"), false);
  ASSERT_TRUE(done.ok());
  EXPECT_GE(done->recorded.lag_secs, 10);
  EXPECT_LT(done->recorded.lag_secs, 100);
}

// Claims the one ready job, or fails the test.
queue::Job ClaimOne(queue::JobQueue& queue) {
  Result<std::optional<queue::Job>> job = queue.Claim();
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_TRUE(job.ok() && job->has_value());
  return job.ok() && job->has_value() ? **job : queue::Job{};
}

TEST_F(JobQueueTest, FinishOfACancelledJobIsDiscardedAndTheNextClaimed) {
  int64_t first = db_.Enqueue("k", "{}");
  queue::Job job = ClaimOne(*queue_);
  ASSERT_EQ(job.id, first);
  int64_t second = db_.Enqueue("k", "{}");
  Result<bool> held = queue_->StillHeld(job);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_TRUE(*held);
  db_.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
           {std::to_string(first)});
  // What a checkpoint reads between renewals sees the cancel.
  held = queue_->StillHeld(job);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_FALSE(*held);
  Result<queue::Finished> done =
      queue_->Finish(job, queue::Outcome::Complete(R"({"x": 1})"), true);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_FALSE(done->recorded.applied);
  EXPECT_EQ(done->recorded.state, queue::JobState::kCancelled);
  // Cancelled under this claim: its outcome is this worker's to count.
  EXPECT_FALSE(done->recorded.taken_over);
  EXPECT_EQ(db_.JobState(first), "CANCELLED");
  EXPECT_EQ(db_.Scalar("SELECT coalesce(result::text, 'none') FROM awc.jobs "
                       "WHERE id = $1",
                       {std::to_string(first)}),
            "none");
  ASSERT_TRUE(done->next.has_value());
  EXPECT_EQ(done->next->id, second);
  EXPECT_EQ(db_.JobState(second), "RUNNING");
}

TEST_F(JobQueueTest, FinishOfAReclaimedJobIsDiscarded) {
  int64_t id = db_.Enqueue("k", "{}");
  queue::Job job = ClaimOne(*queue_);
  // Its lease expired and another worker claimed it again.
  db_.Exec(
      "UPDATE awc.jobs SET locked_until = now() - interval '1 second' "
      "WHERE id = $1",
      {std::to_string(id)});
  auto other_conn = db_.Connect("t-2");
  queue::Xorshift32 other_rng = queue::Xorshift32::FromWorkerId("t-2");
  queue::JobQueue other(other_conn.get(), "t-2", 30, &other_rng);
  ASSERT_TRUE(other.Prepare().ok());
  ASSERT_TRUE(other.Reclaim(10, 30).ok());
  // Taken back: the token is cleared with the lease.
  EXPECT_EQ(db_.Scalar("SELECT coalesce(lease_token::text, 'none') FROM "
                       "awc.jobs WHERE id = $1",
                       {std::to_string(id)}),
            "none");
  Result<queue::Finished> late =
      queue_->Finish(job, queue::Outcome::Complete("{}"), false);
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  EXPECT_FALSE(late->recorded.applied);
  EXPECT_EQ(late->recorded.state, queue::JobState::kPending);
  EXPECT_TRUE(late->recorded.taken_over) << "the reclaim counted it";
  queue::Job again = ClaimOne(other);
  ASSERT_EQ(again.id, id);
  EXPECT_GT(again.lease_token, job.lease_token) << "a job's tokens only grow";

  for (queue::Outcome outcome :
       {queue::Outcome::Complete("{}"), queue::Outcome::Retry("late"),
        queue::Outcome::Fail("late"), queue::Outcome::Defer(5, "late")}) {
    Result<queue::Finished> done = queue_->Finish(job, outcome, true);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_FALSE(done->recorded.applied);
    EXPECT_EQ(done->recorded.state, queue::JobState::kRunning);
    EXPECT_TRUE(done->recorded.taken_over);
    EXPECT_FALSE(done->next.has_value());
  }
  EXPECT_EQ(db_.Scalar("SELECT locked_by || ' ' || attempts FROM awc.jobs "
                       "WHERE id = $1",
                       {std::to_string(id)}),
            "t-2 2");
  Result<queue::Finished> done =
      other.Finish(again, queue::Outcome::Complete("{}"), false);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->recorded.applied);
  EXPECT_FALSE(done->recorded.taken_over);
  EXPECT_EQ(db_.JobState(id), "COMPLETED");
  // The same record sent again (its reply lost, say) is discarded, and is
  // still the claim's own.
  done = other.Finish(again, queue::Outcome::Complete("{}"), false);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->recorded.applied);
  EXPECT_EQ(done->recorded.state, queue::JobState::kCompleted);
  EXPECT_FALSE(done->recorded.taken_over);
}

// The k-th retry of a job waits base(k) = min(300, 5 * 2^(k-1)) seconds
// plus a jitter uniform in [0, base(k)] from the worker's xorshift32:
// 5, 10, 20, 40, 80, 160, 300, 300 s of base for k = 1 … 8
// (docs/queue.md, "Backoff with jitter"), as recorded on the row.
TEST_F(JobQueueTest, RetriesWaitTheDocumentedBackoff) {
  constexpr double kBase[] = {5, 10, 20, 40, 80, 160, 300, 300};
  int64_t id = db_.Enqueue("k", "{}", 20);
  // The same sequence of draws as the queue's.
  queue::Xorshift32 mirror = rng_;
  for (int k = 1; k <= 8; ++k) {
    SCOPED_TRACE("retry " + std::to_string(k));
    db_.Exec("UPDATE awc.jobs SET run_at = now() WHERE id = $1",
             {std::to_string(id)});
    queue::Job job = ClaimOne(*queue_);
    ASSERT_EQ(job.id, id);
    ASSERT_EQ(job.attempts, k);
    Result<queue::Finished> done =
        queue_->Finish(job, queue::Outcome::Retry("again"), false);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    ASSERT_EQ(done->recorded.state, queue::JobState::kPending);
    double want = queue::BackoffDelaySecs(k, mirror);
    EXPECT_GE(want, kBase[k - 1]);
    EXPECT_LE(want, 2 * kBase[k - 1]);
    // run_at and updated_at are set by the same statement.
    double waited = std::stod(
        db_.Scalar("SELECT extract(epoch FROM run_at - updated_at) FROM "
                   "awc.jobs WHERE id = $1",
                   {std::to_string(id)}));
    EXPECT_NEAR(waited, want, 1e-6);
  }
}

TEST_F(JobQueueTest, ARefusedRecordTakesTheClaimWithIt) {
  int64_t first = db_.Enqueue("k", "{}");
  queue::Job job = ClaimOne(*queue_);
  int64_t second = db_.Enqueue("k", "{}");
  // jsonb refuses a NUL character: the record fails, and the claim sent in
  // the same pipeline must not commit without it.
  Result<queue::Finished> done = queue_->Finish(
      job, queue::Outcome::Complete(R"({"nul": "\u0000"})"), true);
  ASSERT_FALSE(done.ok());
  EXPECT_TRUE(done.status().IsInvalidArgument()) << done.status().ToString();
  EXPECT_EQ(db_.JobState(first), "RUNNING");
  EXPECT_EQ(db_.JobState(second), "PENDING");
  // The session is usable afterwards (out of pipeline mode, no open
  // transaction).
  done = queue_->Finish(job, queue::Outcome::Complete("{}"), true);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_TRUE(done->recorded.applied);
  ASSERT_TRUE(done->next.has_value());
  EXPECT_EQ(done->next->id, second);
}

TEST_F(JobQueueTest, OnlyTheQueuesOwnCommitsAreAsynchronous) {
  db_.Enqueue("k", "{}");
  db_.Enqueue("k", "{}");
  queue::Job job = ClaimOne(*queue_);
  Result<queue::Finished> done =
      queue_->Finish(job, queue::Outcome::Complete("{}"), true);
  ASSERT_TRUE(done.ok());
  // What a handler then commits on the same session waits for its flush.
  Result<db::PgResult> setting = conn_->Exec("SHOW synchronous_commit");
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(setting->GetString(0, 0), "on")
      << "kQueueTransaction must stay local to the queue's transaction";
  ASSERT_TRUE(queue_->Claim().ok());
  setting = conn_->Exec("SHOW synchronous_commit");
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(setting->GetString(0, 0), "on");
  // Nor do its generic plans reach a handler's statements.
  setting = conn_->Exec("SHOW plan_cache_mode");
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(setting->GetString(0, 0), "auto");
}

// The queue's statements run their generic plans: planned once per
// session, not once per job (the plan cache's default, after five custom
// plans, keeps planning the claim for every job).
TEST_F(JobQueueTest, TheQueueTransactionRunsGenericPlans) {
  for (int i = 0; i < 12; ++i) db_.Enqueue("k", "{}");
  queue::Job job = ClaimOne(*queue_);
  for (int i = 0; i < 11; ++i) {
    Result<queue::Finished> done =
        queue_->Finish(job, queue::Outcome::Complete("{}"), true);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    ASSERT_TRUE(done->next.has_value());
    job = *done->next;
  }
  Result<db::PgResult> plans = conn_->Exec(
      "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements "
      "WHERE name IN ('claim', 'complete') ORDER BY name");
  ASSERT_TRUE(plans.ok()) << plans.status().ToString();
  ASSERT_EQ(plans->rows(), 2);
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(plans->GetString(i, 0));
    EXPECT_GE(plans->GetInt(i, 1), 11);
    EXPECT_EQ(plans->GetInt(i, 2), 0);
  }
}

// A RUNNING job held by worker `holder` since `since` seconds ago (claim or
// last renewal), its lease an hour away; returns its id.
int64_t HeldJob(TestDatabase& db, const std::string& holder, int since) {
  return db.Int(
      "INSERT INTO awc.jobs (kind, state, attempts, locked_by, locked_until, "
      "lease_token, updated_at) VALUES ('k', 'RUNNING', 1, $1, now() + "
      "interval '1 hour', 7, now() - make_interval(secs => $2)) RETURNING id",
      {holder, std::to_string(since)});
}

// A heartbeat row of `worker_id` on `host`, written `age` seconds ago.
void Beat(TestDatabase& db, const std::string& host,
          const std::string& worker_id, int age) {
  db.Exec(
      "INSERT INTO awc.workers (host, pid, worker_id, slot, started_at, "
      "heartbeat_at, state) VALUES ($1, 100 + (random() * 1e6)::int, $2, 1, "
      "now() - interval '1 day', now() - make_interval(secs => $3), 'busy')",
      {host, worker_id, std::to_string(age)});
}

TEST_F(JobQueueTest, AJobOfASilentHolderIsTakenBackBeforeItsLeaseEnds) {
  // Silent for 60 s on the only host of its id: taken back.
  Beat(db_, "host-b", "b-1", 60);
  int64_t silent = HeldJob(db_, "b-1", 60);
  // Beating (on one of the two hosts its id is on): kept.
  Beat(db_, "host-c", "c-1", 60);
  Beat(db_, "host-d", "c-1", 1);
  int64_t beating = HeldJob(db_, "c-1", 60);
  // Silent, but claimed or renewed within the timeout: kept.
  Beat(db_, "host-e", "e-1", 60);
  int64_t renewed = HeldJob(db_, "e-1", 5);
  // No heartbeat row at all: left to its lease.
  int64_t unknown = HeldJob(db_, "f-1", 60);

  Result<std::vector<queue::Reclaimed>> none = queue_->Reclaim(10, 0);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty()) << "0 turns it off";

  Result<std::vector<queue::Reclaimed>> taken = queue_->Reclaim(10, 30);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].id, silent);
  EXPECT_EQ((*taken)[0].why, queue::TakenBack::kHolderSilent);
  EXPECT_EQ((*taken)[0].state, queue::JobState::kPending);
  EXPECT_EQ(db_.JobState(silent), "PENDING");
  EXPECT_EQ(db_.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                       {std::to_string(silent)}),
            "its worker went silent (b-1: no heartbeat for 30 s)");
  for (int64_t kept : {beating, renewed, unknown}) {
    EXPECT_EQ(db_.JobState(kept), "RUNNING") << kept;
  }
}

TEST_F(JobQueueTest, ASilentHoldersJobInAFencedTransactionIsKept) {
  // The holder is in the middle of a long statement of its handler: the
  // fence holds the job row (kFenceJob), and the reclaim passes it by.
  Beat(db_, "host-b", "b-1", 60);
  int64_t id = HeldJob(db_, "b-1", 60);
  auto holder = db_.Connect("b-1");
  ASSERT_TRUE(holder->Exec("BEGIN").ok());
  ASSERT_TRUE(
      holder
          ->Exec(queue::sql::kFenceJob, {std::to_string(id), std::string("7")})
          .ok());
  Result<std::vector<queue::Reclaimed>> taken = queue_->Reclaim(10, 30);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_TRUE(taken->empty());
  ASSERT_TRUE(holder->Exec("COMMIT").ok());
  taken = queue_->Reclaim(10, 30);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(taken->size(), 1u) << "taken once the transaction ended";
}

TEST_F(JobQueueTest, ASilentHoldersJobIsDeadLetteredOnceItsAttemptsAreSpent) {
  Beat(db_, "host-b", "b-1", 60);
  int64_t id = HeldJob(db_, "b-1", 60);
  db_.Exec("UPDATE awc.jobs SET attempts = max_attempts WHERE id = $1",
           {std::to_string(id)});
  Result<std::vector<queue::Reclaimed>> taken = queue_->Reclaim(10, 30);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].state, queue::JobState::kFailed);
  EXPECT_EQ((*taken)[0].dead_reason, queue::DeadReason::kAttemptsExhausted);
}

}  // namespace
}  // namespace awc::testing
