// What the workers count, on the real daemon: a job is counted once in
// awc_background_jobs_total however many workers had a hand in it, and
// awc_api_errors_total{component="worker"} counts only the transient errors
// of claims and records, the other database errors of the workers
// counting in awc_worker_other_database_errors_total
// (docs/observability.md, "Metrics").
#include <gtest/gtest.h>

#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class WorkerCountsTest : public ::testing::Test {
 protected:
  void Start(int concurrency,
             std::vector<std::pair<std::string, std::string>> extra = {}) {
    port_ = FreePort();
    extra.push_back(
        {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port_)});
    daemon_ = std::make_unique<DaemonProcess>(
        FleetOptions(db_, concurrency, std::move(extra)));
    ASSERT_TRUE(daemon_->WaitForEvent("supervisor running"))
        << daemon_->Stderr();
  }
  std::string Scrape() { return ScrapeMetrics(port_); }

  TestDatabase db_;
  int port_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(WorkerCountsTest, ALateOutcomeOfAJobTakenBackIsNotCountedAgain) {
  db_.Migrate();
  db_.Exec("CREATE SCHEMA awc_test");
  db_.Exec(
      "CREATE TABLE awc_test.effects (job_id bigint NOT NULL, lease_token "
      "bigint NOT NULL, attempt integer NOT NULL, at timestamptz NOT NULL)");
  // Two workers and a 1 s lease: the first run stalls for 6 s without a
  // checkpoint, the other worker takes the job back (counted: retried) and
  // runs it again (counted: completed); then the stalled run ends, and its
  // outcome, discarded, is that of a job another worker has counted.
  Start(2, {{"AWC_WORKER_LEASE_SECS", "1"}});
  int64_t job = db_.Enqueue("test_stalled_effect", R"({"ms": 6000})");
  std::string id = "job_" + std::to_string(job);
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const JsonPtr& e : daemon_->EventsWith("job completed", id)) {
          if (json_is_true(json_object_get(e.get(), "discarded"))) return true;
        }
        return false;
      },
      120))
      << daemon_->Stderr();
  EXPECT_EQ(db_.JobState(job), "COMPLETED");
  std::string body = Scrape();
  EXPECT_EQ(JobsTotal(body, "test_stalled_effect", "retried"), 1) << body;
  EXPECT_EQ(JobsTotal(body, "test_stalled_effect", "completed"), 1) << body;
  EXPECT_EQ(MetricValue(body, "awc_lease_reclaims_total"), 1);
}

// Claims and records refused by a trigger: transient (SQLSTATE 40001, 40P01)
// and not (P0001); and lease renewals refused every time.
constexpr const char* kRefusals[] = {
    "CREATE SCHEMA awc_test",
    "CREATE SEQUENCE awc_test.claims",
    "CREATE SEQUENCE awc_test.records",
    R"sql(
CREATE FUNCTION awc_test.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.kind = 'test_complete' AND OLD.state = 'PENDING'
     AND NEW.state = 'RUNNING' THEN
    CASE nextval('awc_test.claims')
      WHEN 1 THEN RAISE EXCEPTION 'claim refused' USING ERRCODE = '40001';
      WHEN 2 THEN RAISE EXCEPTION 'claim refused' USING ERRCODE = 'P0001';
      ELSE NULL;
    END CASE;
  ELSIF OLD.kind = 'test_complete' AND OLD.state = 'RUNNING'
        AND NEW.state <> 'RUNNING' THEN
    IF nextval('awc_test.records') = 1 THEN
      RAISE EXCEPTION 'record refused' USING ERRCODE = '40P01';
    END IF;
  ELSIF OLD.kind = 'test_sleep' AND OLD.state = 'RUNNING'
        AND NEW.state = 'RUNNING' THEN
    RAISE EXCEPTION 'renewal refused' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$)sql",
    "CREATE TRIGGER refuse BEFORE UPDATE ON awc.jobs FOR EACH ROW EXECUTE "
    "FUNCTION awc_test.refuse()",
};

TEST_F(WorkerCountsTest, ApiErrorsAreTheTransientErrorsOfClaimsAndRecords) {
  db_.Migrate();
  for (const char* sql : kRefusals) db_.Exec(sql);
  // Lease 9 s: the sleeper's checkpoints try to renew from 3 s on, and it
  // ends at 4 s, well before its lease (the record is not refused).
  Start(1, {{"AWC_WORKER_LEASE_SECS", "9"}});
  int64_t done = db_.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(done) == "COMPLETED"; }))
      << daemon_->Stderr();
  int64_t slept = db_.Enqueue("test_sleep", R"({"ms": 4000})");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(slept) == "COMPLETED"; }))
      << daemon_->Stderr();
  ASSERT_FALSE(daemon_->EventsWith("lease renewal failed").empty())
      << daemon_->Stderr();
  std::string body = Scrape();
  // The refused claim (40001) and record (40P01).
  EXPECT_EQ(MetricValue(body, R"(awc_api_errors_total{component="worker"})"), 2)
      << body;
  // The claim refused for good (P0001) and the renewals.
  EXPECT_GE(MetricValue(body, "awc_worker_other_database_errors_total"), 2)
      << body;
  EXPECT_EQ(JobsTotal(body, "test_complete", "completed"), 1);
  EXPECT_EQ(JobsTotal(body, "test_sleep", "completed"), 1);
}

}  // namespace
}  // namespace awc::testing
