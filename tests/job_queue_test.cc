// queue::JobQueue against the real database: what it reports about the
// jobs it records.
#include "queue/job_queue.h"

#include <gtest/gtest.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class JobQueueTest : public ::testing::Test {
 protected:
  JobQueueTest() {
    db_.Migrate();
    conn_ = db_.Connect("t-1");
    queue_ = std::make_unique<queue::JobQueue>(conn_.get(), "t-1", 30);
    EXPECT_TRUE(queue_->Prepare().ok());
  }

  TestDatabase db_;
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
  Result<std::vector<queue::Reclaimed>> reclaimed = queue_->ReclaimExpired(10);
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

}  // namespace
}  // namespace awc::testing
