// Queue semantics through the real process tree: outcomes, backoff,
// dead-lettering, lease expiry, cancellation, renewal, wake-up.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

std::string Col(TestDatabase& db, int64_t id, const std::string& col) {
  return db.Scalar("SELECT " + col + " FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)});
}

class QueueSemanticsTest : public ::testing::Test {
 protected:
  void StartFleet(int concurrency,
                  std::vector<std::pair<std::string, std::string>> extra = {}) {
    daemon_ = std::make_unique<DaemonProcess>(
        FleetOptions(db_, concurrency, std::move(extra)));
    ASSERT_TRUE(daemon_->WaitForEvent("worker started", 30, concurrency))
        << daemon_->Stderr();
  }
  bool WaitState(int64_t id, const std::string& state) {
    return WaitUntil([&] { return db_.JobState(id) == state; });
  }

  TestDatabase db_;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(QueueSemanticsTest, CompleteRecordsTheResult) {
  StartFleet(2);
  int64_t id = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitState(id, "COMPLETED"));
  EXPECT_EQ(Col(db_, id, "result::text"), R"({"ok": true})");
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
  EXPECT_EQ(Col(db_, id, "finished_at IS NOT NULL"), "t");
  EXPECT_EQ(Col(db_, id, "locked_until IS NULL"), "t");
  EXPECT_TRUE(Col(db_, id, "locked_by").starts_with("t-"));
}

TEST_F(QueueSemanticsTest, UnknownKindIsDeadLetteredAtTheFirstAttempt) {
  StartFleet(1);
  int64_t id = db_.Enqueue("no_such_kind", R"({"snapshot_id": 1})", 5);
  ASSERT_TRUE(WaitState(id, "FAILED"));
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
  EXPECT_EQ(Col(db_, id, "last_error"), "unknown job kind");
}

TEST_F(QueueSemanticsTest, MalformedPayloadsAreDeadLetteredAtTheFirstAttempt) {
  StartFleet(1);
  std::vector<int64_t> ids = {
      db_.Enqueue("test_sleep", R"({"ms": "10"})"),
      db_.Enqueue("test_sleep", R"({})"),
      db_.Enqueue("test_sleep", R"([10])"),
      db_.Enqueue("test_sleep", R"({"ms": 1.5})"),
      db_.Enqueue("test_sleep", R"({"ms": -1})"),
  };
  for (int64_t id : ids) {
    ASSERT_TRUE(WaitState(id, "FAILED")) << id;
    EXPECT_EQ(Col(db_, id, "attempts"), "1");
    EXPECT_TRUE(Col(db_, id, "last_error").starts_with("malformed payload: "))
        << Col(db_, id, "last_error");
  }
}

// A key the build does not know is a later release's producer's: the job
// runs (docs/operations.md, "Rolling upgrades").
TEST_F(QueueSemanticsTest, APayloadKeyTheBuildDoesNotKnowIsIgnored) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_sleep", R"({"ms": 10, "added_later": 1})");
  ASSERT_TRUE(WaitState(id, "COMPLETED"));
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
}

TEST_F(QueueSemanticsTest, FailIsPermanent) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_fail", "{}", 5);
  ASSERT_TRUE(WaitState(id, "FAILED"));
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
  EXPECT_EQ(Col(db_, id, "last_error"), "TEST-ERROR-TEXT permanent");
}

TEST_F(QueueSemanticsTest, RetryReschedulesWithinBaseAndTwiceBase) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_retry", "{}", 5);
  ASSERT_TRUE(WaitUntil([&] {
    return Col(db_, id, "attempts") == "1" && db_.JobState(id) == "PENDING";
  }));
  // First retry: base 5 s, full jitter up to 5 s more. updated_at is the
  // time of recording; run_at is set in the same statement.
  double delay =
      std::stod(Col(db_, id, "extract(epoch FROM run_at - updated_at)"));
  EXPECT_GE(delay, 5.0);
  EXPECT_LE(delay, 10.0);
  EXPECT_EQ(Col(db_, id, "last_error"), "TEST-ERROR-TEXT transient");
  EXPECT_EQ(Col(db_, id, "finished_at IS NULL"), "t");
}

TEST_F(QueueSemanticsTest, RetryDeadLettersOnceAttemptsAreSpent) {
  StartFleet(1);
  int64_t once = db_.Enqueue("test_retry", "{}", 1);
  ASSERT_TRUE(WaitState(once, "FAILED"));
  EXPECT_EQ(Col(db_, once, "attempts"), "1");
  // A job on its last attempt (the earlier ones made ready at once here).
  int64_t last = db_.Enqueue("test_retry", "{}", 3);
  db_.Exec("UPDATE awc.jobs SET attempts = 2 WHERE id = $1",
           {std::to_string(last)});
  ASSERT_TRUE(WaitState(last, "FAILED"));
  EXPECT_EQ(Col(db_, last, "attempts"), "3");
}

TEST_F(QueueSemanticsTest, DeferralSpendsNoAttempt) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_defer", R"({"secs": 30})", 1);
  ASSERT_TRUE(WaitUntil([&] {
    return db_.JobState(id) == "PENDING" &&
           Col(db_, id, "run_at > now() + interval '20 seconds'") == "t";
  }));
  EXPECT_EQ(Col(db_, id, "attempts"), "0");
  // max_attempts 1 and still PENDING: the deferral was not a retry. Its
  // reason is on the row.
  EXPECT_EQ(Col(db_, id, "last_error"), "test deferral");
  EXPECT_EQ(Col(db_, id, "dead_reason"), "NULL");
}

TEST_F(QueueSemanticsTest, ExpiredLeasesAreReclaimedOrDeadLettered) {
  db_.Migrate();
  // Left behind by a worker that died: lease over, attempts left / spent.
  int64_t again = db_.Int(
      "INSERT INTO awc.jobs (kind, payload, state, attempts, max_attempts, "
      "locked_by, locked_until, lease_token) VALUES ('test_complete', '{}', "
      "'RUNNING', 1, 5, 'gone-1', now() - interval '1 second', 7) RETURNING "
      "id");
  int64_t spent = db_.Int(
      "INSERT INTO awc.jobs (kind, payload, state, attempts, max_attempts, "
      "locked_by, locked_until, lease_token) VALUES ('test_complete', '{}', "
      "'RUNNING', 5, 5, 'gone-2', now() - interval '1 second', 8) RETURNING "
      "id");
  int64_t held = db_.Int(
      "INSERT INTO awc.jobs (kind, payload, state, attempts, max_attempts, "
      "locked_by, locked_until, lease_token) VALUES ('test_complete', '{}', "
      "'RUNNING', 1, 5, 'alive-1', now() + interval '1 hour', 9) RETURNING id");
  StartFleet(2);
  ASSERT_TRUE(WaitState(again, "COMPLETED"));
  EXPECT_EQ(Col(db_, again, "attempts"), "2");
  ASSERT_TRUE(WaitState(spent, "FAILED"));
  EXPECT_EQ(Col(db_, spent, "last_error"), "lease expired (held by gone-2)");
  EXPECT_EQ(Col(db_, spent, "attempts"), "5");
  EXPECT_TRUE(daemon_->WaitForEvent("job dead-lettered"));
  auto dead =
      daemon_->EventsWith("job dead-lettered", "job_" + std::to_string(spent));
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(Str(dead[0].get(), "reason"), "lease_expired");
  // A live lease is left alone.
  EXPECT_EQ(db_.JobState(held), "RUNNING");
  EXPECT_EQ(Col(db_, held, "locked_by"), "alive-1");
}

TEST_F(QueueSemanticsTest, CancelDuringTheRunDiscardsTheOutcome) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_sleep", R"({"ms": 1500})");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  db_.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
           {std::to_string(id)});
  ASSERT_TRUE(daemon_->WaitForEvent("job cancelled"));
  auto events =
      daemon_->EventsWith("job cancelled", "job_" + std::to_string(id));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Str(events[0].get(), "level"), "error");
  EXPECT_EQ(Str(events[0].get(), "outcome"), "cancelled");
  EXPECT_EQ(Str(events[0].get(), "state"), "CANCELLED");
  EXPECT_TRUE(json_is_true(json_object_get(events[0].get(), "discarded")));
  EXPECT_EQ(db_.JobState(id), "CANCELLED");
  EXPECT_EQ(Col(db_, id, "result"), "NULL");
}

TEST_F(QueueSemanticsTest, ReclaimedJobOutcomeIsDiscardedByFencing) {
  StartFleet(1);
  int64_t id = db_.Enqueue("test_sleep", R"({"ms": 1500})");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  // Another worker reclaimed it meanwhile: new token, still RUNNING.
  db_.Exec(
      "UPDATE awc.jobs SET lease_token = lease_token + 1000, locked_by = "
      "'other-1' WHERE id = $1",
      {std::to_string(id)});
  ASSERT_TRUE(daemon_->WaitForEvent("job left in an unexpected state"));
  EXPECT_EQ(db_.JobState(id), "RUNNING");
  EXPECT_EQ(Col(db_, id, "locked_by"), "other-1");
  EXPECT_EQ(Col(db_, id, "result"), "NULL");
}

TEST_F(QueueSemanticsTest, LongHandlersRenewTheirLease) {
  // Lease 2 s, job 5 s: without renewal the second worker would reclaim it.
  StartFleet(2, {{"AWC_WORKER_LEASE_SECS", "2"}});
  int64_t id = db_.Enqueue("test_sleep", R"({"ms": 5000})");
  ASSERT_TRUE(WaitState(id, "COMPLETED"));
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
  for (auto& e : daemon_->Events()) {
    EXPECT_NE(Str(e.get(), "reason"), "lease_expired");
  }
}

TEST_F(QueueSemanticsTest, HandlersWaitingOnTheEventLoopKeepTheirLease) {
  StartFleet(2, {{"AWC_WORKER_LEASE_SECS", "2"}});
  int64_t id = db_.Enqueue("test_loop_wait", R"({"ms": 5000})");
  ASSERT_TRUE(WaitState(id, "COMPLETED"));
  EXPECT_EQ(Col(db_, id, "attempts"), "1");
  for (auto& e : daemon_->Events()) {
    EXPECT_NE(Str(e.get(), "reason"), "lease_expired");
  }
}

TEST_F(QueueSemanticsTest,
       ConnectionLostDuringAJobIsRecordedAfterReconnecting) {
  // Lease 9 s: the handler's checkpoints try to renew every 3 s, on a
  // connection the test kills under it; the job ends after 4 s, which
  // leaves the worker 5 s of lease to reconnect and record the outcome
  // before its own lease expires (after which the outcome would be
  // discarded and the job reclaimed).
  StartFleet(1, {{"AWC_WORKER_LEASE_SECS", "9"}});
  int64_t id = db_.Enqueue("test_db_hold", R"({"ms": 4000})");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  db_.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
      "datname = current_database() AND application_name = 't-1'");
  ASSERT_TRUE(WaitUntil([&] {
    return db_.JobState(id) == "PENDING" && Col(db_, id, "attempts") == "1";
  })) << daemon_->Stderr();
  EXPECT_EQ(Col(db_, id, "last_error"), "connection lost during the job");
  EXPECT_TRUE(daemon_->EventsWith("worker exited").empty())
      << daemon_->Stderr();
  EXPECT_FALSE(daemon_->EventsWith("lease renewal failed").empty());
}

TEST_F(QueueSemanticsTest, NotifyWakesIdleWorkersLongBeforeThePoll) {
  // The poll interval is far beyond the wait below: only NOTIFY can do it.
  StartFleet(2, {{"AWC_WORKER_POLL_INTERVAL_MS", "600000"}});
  // Both workers have LISTENed once they have run their first claim.
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = "
               "current_database() AND application_name LIKE 't-%' AND "
               "state = 'idle' AND query LIKE '%SKIP LOCKED%'") == 2;
  }));
  int64_t id = db_.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db_.JobState(id) == "COMPLETED"; }, 60));
}

TEST_F(QueueSemanticsTest, EveryJobRunsOnceAcrossWorkers) {
  db_.Migrate();
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload) SELECT 'test_complete', '{}' "
      "FROM generate_series(1, 300)");
  StartFleet(4);
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int("SELECT count(*) FROM awc.jobs WHERE state = 'COMPLETED'") ==
           300;
  }));
  EXPECT_EQ(db_.Int("SELECT max(attempts) FROM awc.jobs"), 1);
  EXPECT_TRUE(daemon_->WaitForEvent("job completed", 30, 300));
  EXPECT_EQ(daemon_->EventsWith("job completed").size(), 300u);
  // The work was shared.
  EXPECT_GE(db_.Int("SELECT count(DISTINCT locked_by) FROM awc.jobs"), 2);
}

TEST_F(QueueSemanticsTest, FutureJobsWaitForTheirTime) {
  db_.Migrate();
  int64_t later = db_.Int(
      "INSERT INTO awc.jobs (kind, payload, run_at) VALUES ('test_complete', "
      "'{}', now() + interval '1 hour') RETURNING id");
  int64_t now = db_.Enqueue("test_complete", "{}");
  StartFleet(1);
  ASSERT_TRUE(WaitState(now, "COMPLETED"));
  EXPECT_EQ(db_.JobState(later), "PENDING");
}

}  // namespace
}  // namespace awc::testing
