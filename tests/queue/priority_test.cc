// Job priorities against the real database (docs/queue.md, "Priorities"):
// a job enqueued without one gets its kind's, a producer may set one in
// range and no other, and a claim takes the most urgent ready job first,
// then the oldest of that priority, in both of the claim's branches.
#include <gtest/gtest.h>
#include <unistd.h>

#include "queue/job_queue.h"
#include "testing/fault_env.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class PriorityTest : public ::testing::Test {
 protected:
  PriorityTest() {
    db_.Migrate();
    conn_ = db_.Connect("p-1");
    queue_ = std::make_unique<queue::JobQueue>(conn_.get(), "p-1", 30, &rng_,
                                               Env::Default());
    EXPECT_TRUE(queue_->Prepare().ok());
  }

  // Inserts a job of `kind` ready since `age` ago, with `priority` unless
  // it is empty; returns its id.
  int64_t Enqueue(const std::string& kind, const std::string& priority,
                  const std::string& age = "0 seconds") {
    std::string sql =
        priority.empty()
            ? "INSERT INTO awc.jobs (kind, payload, run_at) VALUES ($1, '{}', "
              "now() - $2::interval) RETURNING id"
            : "INSERT INTO awc.jobs (kind, payload, run_at, priority) VALUES "
              "($1, '{}', now() - $2::interval, $3::smallint) RETURNING id";
    db::Params params = {kind, age};
    if (!priority.empty()) params.push_back(priority);
    return db_.Int(sql, params);
  }

  int Priority(int64_t id) {
    return static_cast<int>(db_.Int(
        "SELECT priority FROM awc.jobs WHERE id = $1", {std::to_string(id)}));
  }

  // The ids of the next `n` claims, each completed.
  std::vector<int64_t> ClaimAll(int n) {
    std::vector<int64_t> out;
    for (int i = 0; i < n; ++i) {
      Result<std::optional<queue::Job>> job = queue_->Claim();
      EXPECT_TRUE(job.ok()) << job.status().ToString();
      if (!job.ok() || !job->has_value()) break;
      out.push_back((*job)->id);
      EXPECT_EQ((*job)->priority, Priority((*job)->id));
      EXPECT_TRUE(
          queue_->Finish(**job, queue::Outcome::Complete("{}"), false).ok());
    }
    return out;
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
  queue::Xorshift32 rng_ = queue::Xorshift32::FromWorkerId("p-1");
  std::unique_ptr<queue::JobQueue> queue_;
};

TEST_F(PriorityTest, AJobWithoutAPriorityGetsItsKinds) {
  EXPECT_EQ(Priority(Enqueue("snapshot_validate", "")), 2);
  EXPECT_EQ(Priority(Enqueue("workspace_expire", "")), 4);
  EXPECT_EQ(Priority(Enqueue("snapshot_retain", "")), 4);
  for (const char* background :
       {"snapshot_scrub", "store_reconcile", "gc_sweep"}) {
    EXPECT_EQ(Priority(Enqueue(background, "")), 7) << background;
  }
  // A kind nobody named: the middle.
  EXPECT_EQ(Priority(Enqueue("custom_kind", "")), 4);
  // An operator's change applies to the jobs enqueued after it.
  db_.Exec(
      "INSERT INTO awc.kind_settings (kind, priority) VALUES "
      "('custom_kind', 1)");
  EXPECT_EQ(Priority(Enqueue("custom_kind", "")), 1);
}

TEST_F(PriorityTest, AProducerSetsOneInRangeAndNoOther) {
  EXPECT_EQ(Priority(Enqueue("snapshot_scrub", "0")), 0);
  EXPECT_EQ(Priority(Enqueue("snapshot_validate", "9")), 9);
  for (const char* bad : {"-1", "10"}) {
    Status s = db_.Connect("producer")
                   ->Exec(std::string("INSERT INTO awc.jobs (kind, priority) "
                                      "VALUES ('snapshot_scrub', ") +
                          bad + ")")
                   .status();
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("jobs_priority_range"), std::string::npos)
        << s.message();
  }
}

TEST_F(PriorityTest, TheMostUrgentReadyJobIsClaimedFirstThenTheOldest) {
  int64_t old_scrub = Enqueue("snapshot_scrub", "", "1 hour");
  int64_t scrub = Enqueue("snapshot_scrub", "");
  int64_t validate = Enqueue("snapshot_validate", "");
  int64_t older_validate = Enqueue("snapshot_validate", "", "1 minute");
  int64_t urgent = Enqueue("snapshot_scrub", "0");
  // Not ready yet, however urgent.
  int64_t later = db_.Int(
      "INSERT INTO awc.jobs (kind, run_at, priority) VALUES "
      "('snapshot_validate', now() + interval '1 hour', 0) RETURNING id");
  EXPECT_EQ(ClaimAll(6), (std::vector<int64_t>{urgent, older_validate,
                                               validate, old_scrub, scrub}));
  EXPECT_EQ(db_.JobState(later), "PENDING");
}

TEST_F(PriorityTest, KindsLeftAloneOrPausedKeepTheOrderOfTheOthers) {
  int64_t scrub = Enqueue("snapshot_scrub", "", "1 hour");
  int64_t retain = Enqueue("snapshot_retain", "");
  int64_t old_expire = Enqueue("workspace_expire", "", "1 minute");
  int64_t validate = Enqueue("snapshot_validate", "");
  int64_t paused = Enqueue("custom_kind", "0");
  db_.Exec("INSERT INTO awc.paused_kinds (kind) VALUES ('custom_kind')");
  queue_->ExcludeKinds({"snapshot_scrub"});
  EXPECT_EQ(ClaimAll(4),
            (std::vector<int64_t>{validate, old_expire, retain}));
  queue_->ExcludeKinds({});
  EXPECT_EQ(ClaimAll(2), (std::vector<int64_t>{scrub}));
  EXPECT_EQ(db_.JobState(paused), "PENDING");
}

TEST_F(PriorityTest, AnUrgentJobBehindTheCursorOfItsPriorityIsClaimedNext) {
  // The claim of a priority-7 job walked priorities 0 to 6 up to its
  // now(); an urgent job enqueued after it is announced and taken next.
  Enqueue("snapshot_scrub", "");
  Enqueue("snapshot_scrub", "");
  ASSERT_EQ(ClaimAll(1).size(), 1u);
  ASSERT_TRUE(queue_->cursor().position(0).micros().has_value());
  int64_t urgent = Enqueue("snapshot_validate", "0", "1 minute");
  int64_t urgent_at = db_.Int(
      "SELECT awc.jobs_ready_micros(run_at)::bigint FROM awc.jobs "
      "WHERE id = $1",
      {std::to_string(urgent)});
  // The notification reaches the session when its backend is next idle.
  auto back = [&] {
    std::optional<int64_t> at = queue_->cursor().position(0).micros();
    return !at || *at <= urgent_at;
  };
  for (int i = 0; i < 500 && !back(); ++i) {
    ASSERT_TRUE(queue_->TakeNotifications().ok());
    if (!back()) usleep(10'000);
  }
  ASSERT_TRUE(back()) << "no notification moved the cursor back";
  EXPECT_EQ(ClaimAll(1), (std::vector<int64_t>{urgent}));
}

}  // namespace
}  // namespace awc::testing
