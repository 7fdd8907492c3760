// Concurrency limits against the real database (docs/queue.md,
// "Concurrency limits"): sessions of one worker id and of two claim the
// kind's jobs only while it is under its host and fleet limits, take
// other kinds meanwhile, and take it again once a job of it ended.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "queue/job_queue.h"
#include "queue/kind_settings.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class KindLimitsTest : public ::testing::Test {
 protected:
  KindLimitsTest() { db_.Migrate(); }

  // A session of worker id `worker`, as each worker of that host has.
  struct Session {
    std::unique_ptr<db::PgConn> conn;
    queue::Xorshift32 rng = queue::Xorshift32::FromWorkerId("s");
    std::unique_ptr<queue::JobQueue> queue;
  };
  std::unique_ptr<Session> Open(const std::string& worker) {
    auto s = std::make_unique<Session>();
    s->conn = db_.Connect(worker);
    s->queue = std::make_unique<queue::JobQueue>(s->conn.get(), worker, 30,
                                                 &s->rng, Env::Default());
    EXPECT_TRUE(s->queue->Prepare().ok());
    return s;
  }
  // The kind of the job `s` claims ("" for none); the job stays RUNNING.
  std::string ClaimKind(Session& s, std::optional<queue::Job>* job = nullptr) {
    Result<std::optional<queue::Job>> claimed = s.queue->Claim();
    EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
    if (!claimed.ok() || !claimed->has_value()) return "";
    if (job != nullptr) *job = *claimed;
    return (*claimed)->kind;
  }
  void Limit(const std::string& kind, std::optional<int> host,
             std::optional<int> fleet) {
    auto conn = db_.Connect("operator");
    Result<queue::KindLimits> set = queue::SetKindLimits(
        *conn, kind, {true, host, true, fleet}, "test");
    ASSERT_TRUE(set.ok()) << set.status().ToString();
  }

  TestDatabase db_;
};

TEST_F(KindLimitsTest, AFleetLimitHoldsAcrossWorkerIds) {
  Limit("slow", std::nullopt, 2);
  for (int i = 0; i < 4; ++i) db_.Enqueue("slow", "{}");
  db_.Enqueue("other", "{}");
  auto a = Open("host-a"), b = Open("host-b"), c = Open("host-c");
  EXPECT_EQ(ClaimKind(*a), "slow");
  std::optional<queue::Job> b_job;
  EXPECT_EQ(ClaimKind(*b, &b_job), "slow");
  // Two run: the third session takes the other kind, then nothing.
  EXPECT_EQ(ClaimKind(*c), "other");
  EXPECT_EQ(ClaimKind(*c), "");
  // One ends: the kind is under its limit again.
  ASSERT_TRUE(
      b->queue->Finish(*b_job, queue::Outcome::Complete("{}"), false).ok());
  EXPECT_EQ(ClaimKind(*c), "slow");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs WHERE kind = 'slow' AND "
                    "state = 'RUNNING'"),
            2);
}

TEST_F(KindLimitsTest, AHostLimitHoldsPerWorkerIdOnly) {
  Limit("slow", 1, std::nullopt);
  for (int i = 0; i < 4; ++i) db_.Enqueue("slow", "{}");
  auto a1 = Open("host-a"), a2 = Open("host-a"), b1 = Open("host-b");
  EXPECT_EQ(ClaimKind(*a1), "slow");
  EXPECT_EQ(ClaimKind(*a2), "");  // host-a runs its one
  EXPECT_EQ(ClaimKind(*b1), "slow");
  // Removed: host-a's second session takes one too.
  Limit("slow", std::nullopt, std::nullopt);
  EXPECT_EQ(ClaimKind(*a2), "slow");
}

TEST_F(KindLimitsTest, ALimitSetLaterIsKeptFromTheNextClaim) {
  auto a = Open("host-a"), b = Open("host-b");
  db_.Enqueue("warmup", "{}");
  EXPECT_EQ(ClaimKind(*a), "warmup");  // a full pass: no limits yet
  EXPECT_FALSE(a->queue->keeps_limits());
  Limit("slow", std::nullopt, 1);
  for (int i = 0; i < 3; ++i) db_.Enqueue("slow", "{}");
  EXPECT_EQ(ClaimKind(*b), "slow");
  // The limit's notification rewinds a's cursor: its next claim is a
  // full pass, which keeps the limit.
  EXPECT_EQ(ClaimKind(*a), "");
  EXPECT_TRUE(a->queue->keeps_limits());
}

}  // namespace
}  // namespace awc::testing
