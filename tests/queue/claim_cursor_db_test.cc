// The claim cursor against the real database (docs/queue.md, "The claim
// cursor"): a claim starts after the last job its session claimed, a job
// that becomes ready behind it is announced and claimed next, one that is
// not announced waits for the next full pass, and the lease sweep looks
// back only as far as its last sweep until its own full pass. The clock of
// the full passes is a manual one, so that none comes by surprise.
#include <gtest/gtest.h>
#include <unistd.h>

#include "queue/job_queue.h"
#include "testing/fault_env.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// Real files, a clock that moves only when told.
class ManualClockEnv : public FaultEnv {
 public:
  ManualClockEnv() : FaultEnv(Env::Default()) {}
  double NowMonotonic() override { return now; }
  double now = 1000.0;
};

// The priority of kind "k", which awc.kind_settings does not name
// (migration 0023).
constexpr int kPriority = 4;

class ClaimCursorDbTest : public ::testing::Test {
 protected:
  ClaimCursorDbTest() {
    db_.Migrate();
    conn_ = db_.Connect("t-1");
    queue_ =
        std::make_unique<queue::JobQueue>(conn_.get(), "t-1", 30, &rng_, &env_);
    EXPECT_TRUE(queue_->Prepare().ok());
  }

  // Claims and completes the next job; its id, or 0 when there was none.
  int64_t ClaimAndComplete() {
    Result<std::optional<queue::Job>> job = queue_->Claim();
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    if (!job.ok() || !job->has_value()) return 0;
    Result<queue::Finished> done =
        queue_->Finish(**job, queue::Outcome::Complete("{}"), false);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return (*job)->id;
  }

  // Waits until notifications have moved the claim cursor back to job
  // `id`'s run_at (or to the start): a listener's backend sends them when
  // it is next idle, which may be after the notifying commit returned.
  void AwaitCursorBackTo(int64_t id) {
    int64_t micros = db_.Int(
        "SELECT awc.jobs_ready_micros(run_at)::bigint FROM awc.jobs "
        "WHERE id = $1",
        {std::to_string(id)});
    auto back = [&] {
      std::optional<int64_t> at = queue_->cursor().position(kPriority).micros();
      return !at || *at <= micros;
    };
    for (int i = 0; i < 500 && !back(); ++i) {
      ASSERT_TRUE(queue_->TakeNotifications().ok());
      if (!back()) usleep(10'000);
    }
    ASSERT_TRUE(back()) << "no notification moved the cursor back";
  }

  // Inserts a job ready since `age` ago, on a session whose triggers are off
  // (as logical replication's apply runs), so that no notification says so.
  int64_t EnqueueSilently(const std::string& age) {
    auto quiet = db_.Connect("producer");
    EXPECT_TRUE(quiet->Exec("SET session_replication_role = replica").ok());
    auto r = quiet->Exec(
        "INSERT INTO awc.jobs (kind, run_at) VALUES ('k', now() - "
        "$1::interval) "
        "RETURNING id",
        {age});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetInt(0, 0) : 0;
  }

  // Inserts RUNNING jobs of another worker whose leases ended `ago`
  // (an interval), `n` of them; returns the first id.
  int64_t InsertEndedLeases(const std::string& ago, int n = 1) {
    return db_.Int(
        "INSERT INTO awc.jobs (kind, state, attempts, locked_by, "
        "locked_until, lease_token) SELECT 'k', 'RUNNING', 1, 't-9', now() - "
        "$1::interval, n FROM generate_series(1, $2) n RETURNING id",
        {ago, std::to_string(n)});
  }

  TestDatabase db_;
  ManualClockEnv env_;
  queue::Xorshift32 rng_ = queue::Xorshift32::FromWorkerId("t-1");
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<queue::JobQueue> queue_;
};

TEST_F(ClaimCursorDbTest,
       AJobInsertedBehindTheCursorIsAnnouncedAndClaimedNext) {
  int64_t first = db_.Enqueue("k", "{}");
  ASSERT_EQ(ClaimAndComplete(), first);  // the session's full pass
  int64_t later = db_.Enqueue("k", "{}");
  // Ready an hour ago: behind the cursor, which sits after `first`.
  int64_t behind = db_.Int(
      "INSERT INTO awc.jobs (kind, run_at) VALUES ('k', now() - interval "
      "'1 hour') RETURNING id");
  AwaitCursorBackTo(behind);
  EXPECT_EQ(ClaimAndComplete(), behind);
  EXPECT_EQ(ClaimAndComplete(), later);
  EXPECT_EQ(ClaimAndComplete(), 0);
}

TEST_F(ClaimCursorDbTest, AJobThatGoesBackToPendingIsAnnouncedAndClaimedNext) {
  int64_t dead = db_.Enqueue("k", "{}", 1);
  Result<std::optional<queue::Job>> job = queue_->Claim();
  ASSERT_TRUE(job.ok() && job->has_value());
  ASSERT_TRUE(queue_->Finish(**job, queue::Outcome::Fail("no"), false).ok());
  int64_t next = db_.Enqueue("k", "{}");
  ASSERT_EQ(ClaimAndComplete(), next);
  // An operator's retry of the dead letter (awcctl dlq retry): PENDING
  // again, its run_at now, its id behind the cursor's.
  db_.Exec(
      "UPDATE awc.jobs SET state = 'PENDING', run_at = now() - "
      "interval '1 minute', finished_at = NULL WHERE id = $1",
      {std::to_string(dead)});
  AwaitCursorBackTo(dead);
  EXPECT_EQ(ClaimAndComplete(), dead);
}

TEST_F(ClaimCursorDbTest, AnUnannouncedJobBehindTheCursorWaitsForTheFullPass) {
  int64_t first = db_.Enqueue("k", "{}");
  ASSERT_EQ(ClaimAndComplete(), first);
  int64_t behind = EnqueueSilently("1 hour");
  // The cursor is after `first`: the job is not seen...
  EXPECT_EQ(ClaimAndComplete(), 0);
  env_.now += 0.5;
  EXPECT_EQ(ClaimAndComplete(), 0);
  // ...until the next full pass, a second after the last one.
  env_.now += 0.6;
  EXPECT_EQ(ClaimAndComplete(), behind);
}

// Another session was quicker: this one's claims find nothing. Its next
// claim starts where the last one's walk ended (its now()) rather than
// where it started: from the start, under a pinned horizon, that is every
// dead entry again, claim after claim, until the session claims a job.
TEST_F(ClaimCursorDbTest, AClaimThatFindsNothingMovesTheCursorToItsNow) {
  auto other_conn = db_.Connect("t-2");
  queue::JobQueue other(other_conn.get(), "t-2", 30, &rng_, &env_);
  ASSERT_TRUE(other.Prepare().ok());
  int64_t taken = db_.Enqueue("k", "{}");
  Result<std::optional<queue::Job>> job = other.Claim();
  ASSERT_TRUE(job.ok() && job->has_value()) << job.status().ToString();
  ASSERT_EQ((*job)->id, taken);
  int64_t before =
      std::stoll(db_.Scalar("SELECT awc.jobs_ready_micros(now())"));
  ASSERT_TRUE(queue_->cursor().at_start());
  EXPECT_EQ(ClaimAndComplete(), 0);  // the full pass: nothing left
  std::optional<int64_t> at = queue_->cursor().position(kPriority).micros();
  ASSERT_TRUE(at.has_value()) << "the cursor stayed at the start";
  EXPECT_GE(*at, before);
  EXPECT_LE(*at,
            std::stoll(db_.Scalar("SELECT awc.jobs_ready_micros(now())")));
  // Past the start indeed: a job ready an hour ago that nothing announced
  // waits for the next full pass; a new one is claimed at once.
  int64_t behind = EnqueueSilently("1 hour");
  int64_t fresh = db_.Enqueue("k", "{}");
  EXPECT_EQ(ClaimAndComplete(), fresh);
  EXPECT_EQ(ClaimAndComplete(), 0);
  env_.now += 1.1;
  EXPECT_EQ(ClaimAndComplete(), behind);
}

TEST_F(ClaimCursorDbTest, AResumedKindRewindsTheCursor) {
  db_.Exec("INSERT INTO awc.paused_kinds (kind) VALUES ('slow')");
  int64_t held = db_.Enqueue("slow", "{}");
  int64_t other = db_.Enqueue("k", "{}");
  ASSERT_EQ(ClaimAndComplete(), other);  // past the paused kind's job
  EXPECT_EQ(ClaimAndComplete(), 0);
  // Resuming notifies awc_jobs without a position: back to the start.
  db_.Exec("DELETE FROM awc.paused_kinds WHERE kind = 'slow'");
  AwaitCursorBackTo(held);  // to the start, in fact
  EXPECT_EQ(ClaimAndComplete(), held);
}

TEST_F(ClaimCursorDbTest, ANewSessionStartsWithAFullPass) {
  int64_t first = db_.Enqueue("k", "{}");
  ASSERT_EQ(ClaimAndComplete(), first);
  int64_t behind = EnqueueSilently("1 hour");
  ASSERT_EQ(ClaimAndComplete(), 0);
  // A reconnect makes a new JobQueue, whose cursor is at the start.
  auto conn = db_.Connect("t-1");
  queue::JobQueue again(conn.get(), "t-1", 30, &rng_, &env_);
  ASSERT_TRUE(again.Prepare().ok());
  Result<std::optional<queue::Job>> job = again.Claim();
  ASSERT_TRUE(job.ok() && job->has_value()) << job.status().ToString();
  EXPECT_EQ((*job)->id, behind);
}

TEST_F(ClaimCursorDbTest,
       TheLeaseSweepLooksBackToItsLastSweepUntilItsFullPass) {
  ASSERT_TRUE(queue_->Reclaim(100, 0).ok());  // the first sweep is full
  // A lease that ended an hour ago, long before that sweep: a holder's
  // transaction hid it from the sweep (it skips locked rows).
  int64_t id = InsertEndedLeases("1 hour");
  env_.now += 0.5;
  Result<std::vector<queue::Reclaimed>> swept = queue_->Reclaim(100, 0);
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_TRUE(swept->empty());
  EXPECT_EQ(db_.JobState(id), "RUNNING");
  // A lease that ended just now is within the sweep's reach.
  int64_t recent = InsertEndedLeases("100 milliseconds");
  env_.now += 0.1;
  swept = queue_->Reclaim(100, 0);
  ASSERT_TRUE(swept.ok());
  ASSERT_EQ(swept->size(), 1u);
  EXPECT_EQ((*swept)[0].id, recent);
  // The full sweep, a second after the last, takes the old one back.
  env_.now += 1.0;
  swept = queue_->Reclaim(100, 0);
  ASSERT_TRUE(swept.ok());
  ASSERT_EQ(swept->size(), 1u);
  EXPECT_EQ((*swept)[0].id, id);
  EXPECT_EQ(db_.JobState(id), "PENDING");
}

TEST_F(ClaimCursorDbTest, AFullBatchKeepsTheSweepLookingAsFarBack) {
  ASSERT_TRUE(queue_->Reclaim(100, 0).ok());  // full; the next is due in 1 s
  // Five leases that ended 2.45 s ago: an incremental sweep reaches them
  // only while it looks back from the full sweep (0.9 s + its 2 s margin).
  InsertEndedLeases("2450 milliseconds", 5);
  env_.now += 0.9;
  Result<std::vector<queue::Reclaimed>> swept = queue_->Reclaim(2, 0);
  ASSERT_TRUE(swept.ok()) << swept.status().ToString();
  EXPECT_EQ(swept->size(), 2u);
  // The batch was full, so the next sweep still looks back from the full
  // one, not from 0.9 s later (which would reach back only 2.05 s).
  env_.now += 0.05;
  swept = queue_->Reclaim(2, 0);
  ASSERT_TRUE(swept.ok());
  EXPECT_EQ(swept->size(), 2u);
  swept = queue_->Reclaim(2, 0);
  ASSERT_TRUE(swept.ok());
  EXPECT_EQ(swept->size(), 1u);
}

}  // namespace
}  // namespace awc::testing
