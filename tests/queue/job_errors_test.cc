// The error history of a job (docs/queue.md, "Error history"), against the
// real database: every attempt that ended in an error keeps its error,
// whichever statement recorded it (a worker's retry or failure, a lease
// taken back, plain SQL of an older build); a deferral is not an error; at
// most the newest 20 stay; they go with the job.
#include <gtest/gtest.h>

#include "queue/admin.h"
#include "queue/job_queue.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class JobErrorsTest : public ::testing::Test {
 protected:
  JobErrorsTest() {
    db_.Migrate();
    conn_ = db_.Connect("t-1");
    queue_ = std::make_unique<queue::JobQueue>(conn_.get(), "t-1", 30, &rng_);
    EXPECT_TRUE(queue_->Prepare().ok());
  }
  // Claims job `id` (the only ready one) and records `outcome`.
  void Attempt(int64_t id, const queue::Outcome& outcome) {
    db_.Exec("UPDATE awc.jobs SET run_at = now() WHERE id = $1",
             {std::to_string(id)});
    Result<std::optional<queue::Job>> job = queue_->Claim();
    ASSERT_TRUE(job.ok() && job->has_value()) << job.status().ToString();
    ASSERT_EQ((*job)->id, id);
    ASSERT_TRUE(queue_->Finish(**job, outcome, false).ok());
  }
  std::vector<queue::AttemptError> Errors(int64_t id) {
    Result<std::optional<queue::JobDetail>> d = queue::ShowJob(*conn_, id);
    EXPECT_TRUE(d.ok() && d->has_value());
    return d.ok() && d->has_value() ? (*d)->errors
                                    : std::vector<queue::AttemptError>();
  }

  TestDatabase db_;
  queue::Xorshift32 rng_ = queue::Xorshift32::FromWorkerId("t-1");
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
};

TEST_F(JobErrorsTest, EveryAttemptThatEndedInAnErrorIsKept) {
  int64_t id = db_.Int(
      "INSERT INTO awc.jobs (kind, max_attempts) VALUES ('k', 3) RETURNING id");
  Attempt(id, queue::Outcome::Retry("the store timed out"));
  Attempt(id, queue::Outcome::Defer(0, "the GC lock is held"));
  Attempt(id, queue::Outcome::Retry("the store timed out again"));
  Attempt(id, queue::Outcome::Retry("still down"));
  std::vector<queue::AttemptError> e = Errors(id);
  ASSERT_EQ(e.size(), 3u);  // the deferral gave its attempt back
  EXPECT_EQ(e[0].attempt, 1);
  EXPECT_EQ(e[0].error, "the store timed out");
  EXPECT_EQ(e[0].state, "PENDING");
  EXPECT_EQ(e[0].worker, "t-1");
  EXPECT_FALSE(e[0].at.empty());
  EXPECT_EQ(e[1].attempt, 2);
  EXPECT_EQ(e[1].error, "the store timed out again");
  EXPECT_EQ(e[2].attempt, 3);
  EXPECT_EQ(e[2].state, "FAILED");
  EXPECT_EQ(e[2].dead_reason, "attempts_exhausted");
  EXPECT_EQ(db_.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                       {std::to_string(id)}),
            "still down");
}

TEST_F(JobErrorsTest, ALeaseTakenBackAndAnOlderBuildsSqlAreKeptToo) {
  int64_t id = db_.Int(
      "INSERT INTO awc.jobs (kind, max_attempts) VALUES ('k', 5) RETURNING id");
  Result<std::optional<queue::Job>> job = queue_->Claim();
  ASSERT_TRUE(job.ok() && job->has_value());
  db_.Exec(
      "UPDATE awc.jobs SET locked_until = now() - interval '1 second' "
      "WHERE id = $1",
      {std::to_string(id)});
  ASSERT_TRUE(queue_->Reclaim(10, 0).ok());
  // An older build records a failure with its own statement.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'RUNNING', attempts = attempts + 1, "
      "locked_by = 'old-1' WHERE id = $1",
      {std::to_string(id)});
  db_.Exec(
      "UPDATE awc.jobs SET state = 'FAILED', last_error = 'old build', "
      "dead_reason = 'handler_failed' WHERE id = $1",
      {std::to_string(id)});
  std::vector<queue::AttemptError> e = Errors(id);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(e[0].error.find("lease expired"), std::string::npos) << e[0].error;
  EXPECT_EQ(e[0].worker, "t-1");
  EXPECT_EQ(e[1].attempt, 2);
  EXPECT_EQ(e[1].worker, "old-1");
  EXPECT_EQ(e[1].dead_reason, "handler_failed");
  // A cancel, a retry by hand and a completion are not errors.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'PENDING', dead_reason = NULL "
      "WHERE id = $1",
      {std::to_string(id)});
  Attempt(id, queue::Outcome::Complete("{}"));
  EXPECT_EQ(Errors(id).size(), 2u);
}

TEST_F(JobErrorsTest, TheNewestTwentyStayAndGoWithTheJob) {
  int64_t id = db_.Int(
      "INSERT INTO awc.jobs (kind, max_attempts) VALUES ('k', 30) RETURNING "
      "id");
  for (int i = 1; i <= 25; ++i) {
    Attempt(id, queue::Outcome::Retry("error " + std::to_string(i)));
  }
  std::vector<queue::AttemptError> e = Errors(id);
  ASSERT_EQ(e.size(), 20u);
  EXPECT_EQ(e.front().attempt, 6);
  EXPECT_EQ(e.front().error, "error 6");
  EXPECT_EQ(e.back().attempt, 25);
  db_.Exec("DELETE FROM awc.jobs WHERE id = $1", {std::to_string(id)});
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.job_errors"), 0);
}

}  // namespace
}  // namespace awc::testing
