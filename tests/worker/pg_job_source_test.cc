// The worker's JobSource against the real database: a session whose jobs
// carry the worker id, and retry delays whose jitter goes on across
// reconnects instead of starting its sequence again.
#include "worker/pg_job_source.h"

#include <ev.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "queue/backoff.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class PgJobSourceTest : public ::testing::Test {
 protected:
  PgJobSourceTest() : loop_(ev_loop_new(EVFLAG_AUTO)) { db_.Migrate(); }
  ~PgJobSourceTest() override { ev_loop_destroy(loop_); }

  fleet::WorkerIdentity Me() const {
    fleet::WorkerIdentity me;
    me.host = "test-host";
    me.pid = 1;
    me.worker_id = "jitter-1";
    me.slot = 1;
    return me;
  }

  // Claims the one ready job, retries it and returns the delay its retry
  // was given (run_at and updated_at are both the statement's now()).
  double RetryDelayOfNextJob(worker::PgJobSource& source) {
    int64_t id = db_.Enqueue("k", "{}");
    Result<std::optional<queue::Job>> job = source.Claim();
    EXPECT_TRUE(job.ok() && job->has_value());
    if (!job.ok() || !job->has_value()) return -1;
    EXPECT_EQ((*job)->id, id);
    EXPECT_EQ(db_.Scalar("SELECT locked_by FROM awc.jobs WHERE id = $1",
                         {std::to_string(id)}),
              "jitter-1");
    Result<queue::Finished> done =
        source.Finish(**job, queue::Outcome::Retry("again"), false);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return std::stod(db_.Scalar(
        "SELECT extract(epoch FROM run_at - updated_at) FROM awc.jobs "
        "WHERE id = $1",
        {std::to_string(id)}));
  }

  TestDatabase db_;
  struct ev_loop* loop_;
};

TEST_F(PgJobSourceTest, RetryJitterGoesOnAcrossReconnects) {
  worker::PgJobSource source(loop_, db_.url(), Me(), 30);
  queue::Xorshift32 expect = queue::Xorshift32::FromWorkerId("jitter-1");
  std::vector<double> want;
  std::vector<double> got;
  for (int session = 0; session < 3; ++session) {
    ASSERT_TRUE(source.Connect().ok());
    want.push_back(queue::BackoffDelaySecs(1, expect));
    got.push_back(RetryDelayOfNextJob(source));
    source.Disconnect();
  }
  // The first retry of each job (attempts 1), one session each: the
  // worker's sequence continues, so the three delays differ; a sequence
  // seeded again at every connect would give the first draw three times.
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 0.002) << "retry " << i;
  }
  EXPECT_NE(want[0], want[1]);
  EXPECT_NE(want[1], want[2]);
}

}  // namespace
}  // namespace awc::testing
