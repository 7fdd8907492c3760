// prune against a real database: only rows older than their retention go,
// in batches; a job whose worker may still run it is never pruned; the
// batches are fenced on the leader's token.
#include <gtest/gtest.h>

#include "scheduler/leader_lease.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/planners.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class PruneTest : public ::testing::Test {
 protected:
  PruneTest() {
    db_.Migrate();
    conn_ = db_.Connect("leader");
    lease_ = std::make_unique<scheduler::LeaderLease>(
        conn_.get(), scheduler::sql::kSchedulerLease, "host-a/1", 30);
    Result<bool> got = lease_->Acquire();
    EXPECT_TRUE(got.ok() && *got);
    options_.job_retention_secs = 7 * 86400;
    options_.dead_letter_retention_secs = 30 * 86400;
    options_.audit_retention_secs = 365 * 86400;
  }

  Result<scheduler::PruneResult> Prune() {
    return scheduler::Prune(
        *conn_, options_, [this] { return lease_->Fence(); },
        [this] {
          ++checkpoints_;
          return Result<bool>(!stop_);
        });
  }
  // A job in `state`, last updated `age` ago and finished then (finished_at
  // NULL when `finished` is false: a producer's cancel leaves it so).
  int64_t Job(const std::string& state, const std::string& age,
              bool finished = true) {
    return db_.Int(
        "INSERT INTO awc.jobs (kind, state, updated_at, finished_at) VALUES "
        "('k', $1, now() - interval '" +
            age + "', " +
            (finished ? "now() - interval '" + age + "'" : "NULL") +
            ") RETURNING id",
        {state});
  }
  bool Exists(int64_t id) {
    return db_.Int("SELECT count(*) FROM awc.jobs WHERE id = $1",
                   {std::to_string(id)}) == 1;
  }

  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
  std::unique_ptr<scheduler::LeaderLease> lease_;
  scheduler::SchedulerOptions options_;
  int checkpoints_ = 0;
  bool stop_ = false;
};

TEST_F(PruneTest, OnlyRowsOlderThanTheirRetentionGo) {
  int64_t done_old = Job("COMPLETED", "8 days");
  int64_t done_new = Job("COMPLETED", "6 days");
  int64_t cancelled_old = Job("CANCELLED", "8 days", false);
  int64_t cancelled_new = Job("CANCELLED", "1 day", false);
  // Cancelled while it ran: its worker's lease has not ended.
  int64_t cancelled_leased = Job("CANCELLED", "8 days", false);
  db_.Exec(
      "UPDATE awc.jobs SET locked_until = now() + interval '5 minutes', "
      "lease_token = 1 WHERE id = $1",
      {std::to_string(cancelled_leased)});
  int64_t dead_old = Job("FAILED", "31 days");
  int64_t dead_new = Job("FAILED", "8 days");
  int64_t running = Job("RUNNING", "40 days", false);
  int64_t pending = Job("PENDING", "40 days", false);
  db_.Exec(
      "INSERT INTO awc.audit_events (event, subject, created_at) VALUES "
      "('old', 'x', now() - interval '366 days'), ('new', 'x', now() - "
      "interval '364 days')");

  Result<scheduler::PruneResult> r = Prune();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->jobs, 2);
  EXPECT_EQ(r->dead_letters, 1);
  EXPECT_EQ(r->audit_events, 1);
  EXPECT_TRUE(r->complete);
  for (int64_t gone : {done_old, cancelled_old, dead_old}) {
    EXPECT_FALSE(Exists(gone)) << gone;
  }
  for (int64_t kept : {done_new, cancelled_new, cancelled_leased, dead_new,
                       running, pending}) {
    EXPECT_TRUE(Exists(kept)) << kept;
  }
  EXPECT_EQ(db_.Scalar("SELECT string_agg(event, ',') FROM "
                       "awc.audit_events"),
            "new");
  // Once its lease is over, the cancelled job goes too.
  db_.Exec(
      "UPDATE awc.jobs SET locked_until = now() - interval '1 second' "
      "WHERE id = $1",
      {std::to_string(cancelled_leased)});
  r = Prune();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs, 1);
  EXPECT_FALSE(Exists(cancelled_leased));
}

TEST_F(PruneTest, AuditRetentionZeroKeepsEverything) {
  options_.audit_retention_secs = 0;
  db_.Exec(
      "INSERT INTO awc.audit_events (event, subject, created_at) VALUES "
      "('old', 'x', now() - interval '10 years')");
  Result<scheduler::PruneResult> r = Prune();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->audit_events, 0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events"), 1);
}

TEST_F(PruneTest, FinishedGcCandidatesGoOpenEpochsKeepTheirs) {
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('t1'), ('t2'), ('t3')");
  auto epoch = [&](const std::string& tenant, const std::string& state,
                   const std::string& finished) {
    int64_t id = db_.Int(
        "INSERT INTO awc.gc_epochs (tenant_id, state, grace_secs, batch_size, "
        "canary_size, finished_at) VALUES ($1, $2, 1, 1, 0, " +
            finished + ") RETURNING id",
        {tenant, state});
    db_.Exec(
        "INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, size, "
        "seq) SELECT $1, $2, 'sha256:' || lpad(i::text, 64, '0'), 1, i FROM "
        "generate_series(1, 1500) i",
        {std::to_string(id), tenant});
    return id;
  };
  int64_t old_done = epoch("t1", "COMPLETED", "now() - interval '8 days'");
  int64_t recent = epoch("t2", "ABORTED", "now() - interval '1 day'");
  int64_t open = epoch("t3", "PLANNED", "NULL");
  Result<scheduler::PruneResult> r = Prune();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gc_candidates, 1500);
  auto count = [&](int64_t id) {
    return db_.Int("SELECT count(*) FROM awc.gc_candidates WHERE epoch_id = $1",
                   {std::to_string(id)});
  };
  EXPECT_EQ(count(old_done), 0);
  EXPECT_EQ(count(recent), 1500);
  EXPECT_EQ(count(open), 1500);
  // The epochs themselves and their counts stay.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.gc_epochs"), 3);
}

TEST_F(PruneTest, DeletesInBoundedBatchesAndStopsWhenAsked) {
  db_.Exec(
      "INSERT INTO awc.jobs (kind, state, finished_at) SELECT 'k', "
      "'COMPLETED', now() - interval '8 days' FROM generate_series(1, 2500)");
  stop_ = true;  // the checkpoint after the first full batch says stop
  Result<scheduler::PruneResult> r = Prune();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs, scheduler::kPruneBatch);
  EXPECT_FALSE(r->complete);
  stop_ = false;
  checkpoints_ = 0;
  r = Prune();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs, 1500);
  EXPECT_TRUE(r->complete);
  // A checkpoint between batches: after the full one of 1000, before the
  // last 500.
  EXPECT_EQ(checkpoints_, 1);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs"), 0);
}

TEST_F(PruneTest, AFormerLeaderPrunesNothing) {
  int64_t old = Job("COMPLETED", "8 days");
  db_.Exec(
      "UPDATE awc.leader_leases SET expires_at = now() - interval '1 second'");
  auto other_conn = db_.Connect("other");
  scheduler::LeaderLease other(other_conn.get(),
                               scheduler::sql::kSchedulerLease, "host-b/2", 30);
  Result<bool> got = other.Acquire();
  ASSERT_TRUE(got.ok() && *got);
  Result<scheduler::PruneResult> r = Prune();
  EXPECT_TRUE(scheduler::IsLeadershipLost(r.status())) << r.status().ToString();
  EXPECT_TRUE(Exists(old));
}

}  // namespace
}  // namespace awc::testing
