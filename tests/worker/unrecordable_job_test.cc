// Jobs the database cannot record: a kind too long for the dead-letter
// index (refused at insert; old rows dead-lettered by the migration) and an
// outcome the database refuses, on the real daemon.
#include <gtest/gtest.h>
#include <signal.h>

#include "migrate/migrator.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// 3.2 kB: more than a btree index entry may hold.
const std::string kLongKind(3200, 'k');

TEST(UnrecordableJobTest, ProducerInsertOfAnOverlongKindIsRefused) {
  TestDatabase db;
  db.Migrate();
  auto conn = db.Connect();
  auto r = conn->Exec("INSERT INTO awc.jobs (kind) VALUES ($1)", {kLongKind});
  ASSERT_FALSE(r.ok()) << "a 3.2 kB kind was accepted";
  EXPECT_NE(r.status().message().find("jobs_kind_at_most_128_bytes"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(conn->last_sqlstate(), "23514");
  // 128 bytes, multi-byte characters included, are fine.
  std::string longest = std::string(126, 'k') + "\xc3\xa9";
  ASSERT_EQ(longest.size(), 128u);
  EXPECT_TRUE(
      conn->Exec("INSERT INTO awc.jobs (kind) VALUES ($1)", {longest}).ok());
}

TEST(UnrecordableJobTest, MigrationDeadLettersRowsWithOverlongKinds) {
  TestDatabase db;
  auto conn = db.Connect();
  // The schema before the kind limit, with rows a producer could insert.
  std::vector<migrate::Migration> before;
  for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
    if (m.version <= 2) before.push_back(m);
  }
  ASSERT_TRUE(migrate::Migrate(*conn, before).ok());
  int64_t pending = db.Int(
      "INSERT INTO awc.jobs (kind) VALUES ($1) RETURNING id", {kLongKind});
  int64_t running = db.Int(
      "INSERT INTO awc.jobs (kind, state, attempts, locked_by, locked_until, "
      "lease_token) VALUES ($1, 'RUNNING', 1, 'w-1', now() + interval '1h', "
      "7) RETURNING id",
      {kLongKind + "r"});
  int64_t cancelled = db.Int(
      "INSERT INTO awc.jobs (kind, state) VALUES ($1, 'CANCELLED') "
      "RETURNING id",
      {kLongKind + "c"});
  int64_t fine = db.Enqueue("test_complete", "{}");

  auto applied = migrate::Migrate(*conn);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  for (int64_t id : {pending, running}) {
    SCOPED_TRACE(id);
    EXPECT_EQ(db.JobState(id), "FAILED");
    EXPECT_NE(db.Scalar("SELECT finished_at FROM awc.jobs WHERE id = $1",
                        {std::to_string(id)}),
              "NULL");
    EXPECT_EQ(db.Scalar("SELECT locked_until FROM awc.jobs WHERE id = $1",
                        {std::to_string(id)}),
              "NULL");
    EXPECT_NE(db.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                        {std::to_string(id)})
                  .find("longer than 128 bytes"),
              std::string::npos);
  }
  EXPECT_EQ(db.JobState(cancelled), "CANCELLED");
  // Nothing is lost: the whole kind is kept in the result.
  EXPECT_EQ(db.Scalar("SELECT result->>'kind' FROM awc.jobs WHERE id = $1",
                      {std::to_string(pending)}),
            kLongKind);
  EXPECT_EQ(db.Scalar("SELECT result->>'kind' FROM awc.jobs WHERE id = $1",
                      {std::to_string(cancelled)}),
            kLongKind + "c");
  EXPECT_LE(db.Int("SELECT max(octet_length(kind)) FROM awc.jobs"), 128);
  EXPECT_EQ(db.JobState(fine), "PENDING");
  EXPECT_EQ(db.Scalar("SELECT convalidated FROM pg_constraint WHERE conname = "
                      "'jobs_kind_at_most_128_bytes'"),
            "t");

  // The fleet runs: nothing is jammed.
  DaemonProcess daemon(FleetOptions(db, 1));
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(fine) == "COMPLETED"; }))
      << daemon.Stderr();
}

TEST(UnrecordableJobTest, AnOutcomeTheDatabaseRefusesEndsTheJob) {
  // The worker cannot store this job's result; retrying the same statement
  // would fail for ever. The job is dead-lettered with the reason instead,
  // and the worker goes on with the next job and stops when told.
  TestDatabase db;
  db.Migrate();
  DaemonProcess daemon(FleetOptions(db, 1));
  int64_t bad = db.Enqueue("test_unstorable", "{}");
  int64_t next = db.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(bad) == "FAILED"; }))
      << "state " << db.JobState(bad) << "\n"
      << daemon.Stderr();
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(bad)}),
            1);
  std::string error = db.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                                {std::to_string(bad)});
  EXPECT_NE(error.find("could not be recorded"), std::string::npos) << error;
  EXPECT_NE(error.find("22P05"), std::string::npos) << error;
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(next) == "COMPLETED"; }));
  EXPECT_EQ(daemon.EventsWith("job dead-lettered", "job_" + std::to_string(bad))
                .size(),
            1u);
  daemon.Signal(SIGTERM);
  std::optional<int> st = daemon.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
}

}  // namespace
}  // namespace awc::testing
