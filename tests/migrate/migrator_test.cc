// Migrations against a real PostgreSQL: fresh, re-run, concurrent runners,
// and the refusal cases.
#include "migrate/migrator.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "migrate/compatibility.h"
#include "migrate/migrate_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using migrate::Migration;

TEST(MigrationsTest, FreshDatabaseGetsTheQueueAndProducersUseDefaults) {
  TestDatabase db;
  auto conn = db.Connect();
  auto applied = migrate::Migrate(*conn);
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  EXPECT_EQ(applied->size(), migrate::EmbeddedMigrations().size());

  // The producer contract (docs/data-model.md, "Data model and producer
  // contract"), with every default.
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('snapshot_validate', "
      "'{\"snapshot_id\": 42}')");
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload, max_attempts, run_at) VALUES "
      "('snapshot_validate', '{\"snapshot_id\": 43}', 5, now())");
  EXPECT_EQ(db.Scalar("SELECT string_agg(state || '/' || attempts || '/' || "
                      "max_attempts, ',' ORDER BY id) FROM awc.jobs"),
            "PENDING/0/5,PENDING/0/5");
  EXPECT_EQ(db.Scalar("SELECT count(*) FROM awc.jobs WHERE run_at <= now() "
                      "AND created_at IS NOT NULL AND updated_at IS NOT NULL "
                      "AND result IS NULL AND finished_at IS NULL"),
            "2");
  // The indexes the claim and lease-expiry queries rely on.
  EXPECT_EQ(db.Scalar("SELECT count(*) FROM pg_indexes WHERE schemaname = "
                      "'awc' AND indexname IN ('jobs_claim_idx', "
                      "'jobs_lease_idx')"),
            "2");
  // A control plane cancels with a plain UPDATE.
  db.Exec(
      "UPDATE awc.jobs SET state = 'CANCELLED' WHERE payload->>'snapshot_id' = "
      "'43'");
  // States outside the contract are refused by the table itself.
  auto bad = conn->Exec("UPDATE awc.jobs SET state = 'BOGUS'");
  EXPECT_FALSE(bad.ok());
}

TEST(MigrationsTest, RerunAppliesNothing) {
  TestDatabase db;
  auto conn = db.Connect();
  ASSERT_TRUE(migrate::Migrate(*conn).ok());
  auto again = migrate::Migrate(*conn);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->empty());
  auto state = migrate::Inspect(*conn);
  ASSERT_TRUE(state.ok());
  EXPECT_TRUE(state->pending.empty());
  EXPECT_EQ(state->current_version, state->latest_version);
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
}

TEST(MigrationsTest, ConcurrentRunnersConverge) {
  TestDatabase db;
  constexpr int kRunners = 6;
  std::vector<std::unique_ptr<db::PgConn>> conns;
  for (int i = 0; i < kRunners; ++i) conns.push_back(db.Connect());
  std::vector<Status> results(kRunners);
  std::vector<size_t> applied(kRunners);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRunners; ++i) {
    threads.emplace_back([&, i] {
      auto r = migrate::Migrate(*conns[i]);
      results[i] = r.status();
      if (r.ok()) applied[i] = r->size();
    });
  }
  for (auto& t : threads) t.join();
  size_t total = 0;
  for (int i = 0; i < kRunners; ++i) {
    EXPECT_TRUE(results[i].ok()) << results[i].message();
    total += applied[i];
  }
  // Exactly one runner applied everything; the others found nothing to do.
  EXPECT_EQ(total, migrate::EmbeddedMigrations().size());
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
}

TEST(MigrationsTest, ChangedAppliedMigrationIsRefused) {
  TestDatabase db;
  auto conn = db.Connect();
  std::vector<Migration> v1 = {
      {1, "0001_first", "CREATE TABLE awc.t1 (a int);"}};
  ASSERT_TRUE(migrate::Migrate(*conn, v1).ok());
  std::vector<Migration> edited = {
      {1, "0001_first", "CREATE TABLE awc.t1 (a bigint);"},
      {2, "0002_second", "CREATE TABLE awc.t2 (a int);"}};
  auto r = migrate::Migrate(*conn, edited);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsFailedPrecondition());
  EXPECT_NE(r.status().message().find("0001_first was changed after it was "
                                      "applied"),
            std::string::npos)
      << r.status().message();
  // Refused as a whole: the second migration was not applied either.
  EXPECT_EQ(db.Scalar("SELECT to_regclass('awc.t2') IS NULL"), "t");
}

// A later release's migration recorded without what it is compatible with
// (or recorded as breaking): this build does not run on it.
TEST(MigrationsTest, AnIncompatibleNewerSchemaIsRefused) {
  TestDatabase db;
  db.Migrate();
  db.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'x')");
  auto conn = db.Connect();
  auto r = migrate::Migrate(*conn);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "database schema is at version 9999, newer than this build (" +
                std::to_string(migrate::EmbeddedMigrations().back().version) +
                "), and its migration 9999_future needs a build that knows "
                "version 9999 or later: upgrade this host"),
            std::string::npos)
      << r.status().message();
  auto inspect = migrate::Inspect(*conn);
  EXPECT_FALSE(inspect.ok());
}

// A later release's migration compatible with what this build knows: the
// build runs on it (docs/operations.md, "Rolling upgrades").
TEST(MigrationsTest, ACompatibleNewerSchemaIsAccepted) {
  TestDatabase db;
  db.Migrate();
  int latest = migrate::EmbeddedMigrations().back().version;
  db.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum, "
      "compatible_from) VALUES (9999, '9999_future', 'x', $1)",
      {std::to_string(latest)});
  auto conn = db.Connect();
  auto r = migrate::Migrate(*conn);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->empty());
  auto state = migrate::Inspect(*conn);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->current_version, 9999);
  EXPECT_EQ(state->newer, std::vector<std::string>{"9999_future"});
  EXPECT_TRUE(migrate::CheckCurrent(*conn).ok());
  EXPECT_EQ(
      migrate::SchemaVersionProblem(db.Scalar(migrate::sql::kSchemaVersion)),
      "");
}

// Every migration is recorded with what it is compatible with, those
// applied before the column existed too.
TEST(MigrationsTest, EachMigrationIsRecordedWithItsCompatibility) {
  TestDatabase db;
  std::vector<Migration> before = migrate::EmbeddedMigrations();
  while (before.back().version >= 21) before.pop_back();
  auto conn = db.Connect();
  ASSERT_TRUE(migrate::Migrate(*conn, before).ok());
  ASSERT_TRUE(migrate::Migrate(*conn).ok());
  std::map<int, int> from =
      migrate::CompatibleFrom(migrate::EmbeddedMigrations());
  for (const Migration& m : migrate::EmbeddedMigrations()) {
    EXPECT_EQ(db.Int("SELECT compatible_from FROM awc.schema_migrations "
                     "WHERE version = $1",
                     {std::to_string(m.version)}),
              from[m.version])
        << m.name;
  }
  EXPECT_EQ(
      db.Scalar(migrate::sql::kSchemaVersion),
      std::to_string(migrate::EmbeddedMigrations().back().version) + ":15");
}

// The gate: a migration that live workers' builds cannot run on waits for
// them, naming them, unless the operator lifts it.
TEST(MigrationsTest, ABreakingMigrationWaitsForLiveWorkersThatCannotRunOnIt) {
  TestDatabase db;
  db.Migrate();
  int latest = migrate::EmbeddedMigrations().back().version;
  std::vector<Migration> next = migrate::EmbeddedMigrations();
  next.push_back({latest + 1, "9001_additive", "CREATE TABLE awc.a (x int);",
                  migrate::Compatibility::kOlderBuildsRun});
  std::vector<Migration> breaking = next;
  breaking.push_back({latest + 2, "9002_breaking",
                      "CREATE TABLE awc.b (x int);",
                      migrate::Compatibility::kBreaking});
  std::vector<migrate::LiveWorker> live = {
      {"host-b", "awc-worker@b-1", "0.1.0", latest},
      {"host-c", "awc-worker@c-1", "", std::nullopt}};
  migrate::MigrateOptions o;
  o.live_workers = [&](db::PgConn&) { return live; };
  auto conn = db.Connect();
  // Additive: older builds keep running.
  auto r = migrate::Migrate(*conn, next, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, std::vector<std::string>{"9001_additive"});
  // Breaking: refused, naming both (the one that does not say what it
  // knows knows the schema it runs on).
  r = migrate::Migrate(*conn, breaking, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsFailedPrecondition());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("migration 9002_breaking is not compatible"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("awc-worker@b-1 on host-b (0.1.0, knows version " +
                     std::to_string(latest) + ")"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("awc-worker@c-1 on host-c (an older build, knows "
                     "version " +
                     std::to_string(latest + 1) + ")"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("--allow-incompatible"), std::string::npos) << msg;
  EXPECT_EQ(db.Scalar("SELECT to_regclass('awc.b') IS NULL"), "t");
  // Workers that know it do not stop it; nor does the operator's override.
  live = {{"host-b", "awc-worker@b-1", "0.2.0", latest + 2}};
  EXPECT_TRUE(migrate::Inspect(*conn, breaking).ok());
  live.push_back({"host-c", "awc-worker@c-1", "0.1.0", latest});
  o.allow_incompatible = true;
  r = migrate::Migrate(*conn, breaking, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, std::vector<std::string>{"9002_breaking"});
  EXPECT_EQ(db.Int("SELECT compatible_from FROM awc.schema_migrations WHERE "
                   "version = $1",
                   {std::to_string(latest + 2)}),
            latest + 2);
  // And now this build is the older one: it refuses to run.
  auto refused = migrate::Inspect(*conn);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("upgrade this host"),
            std::string::npos);
}

TEST(MigrationsTest, FailingMigrationCommitsNothing) {
  TestDatabase db;
  auto conn = db.Connect();
  std::vector<Migration> bad = {
      {1, "0001_ok", "CREATE TABLE awc.ok1 (a int);"},
      {2, "0002_broken", "CREATE TABLE awc.broken (a nonexistent_type);"}};
  auto r = migrate::Migrate(*conn, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("0002_broken"), std::string::npos);
  EXPECT_EQ(db.Scalar("SELECT to_regclass('awc.ok1') IS NULL"), "t");
}

TEST(MigrationsTest, TwoDaemonsStartingAtOnceBothMigrateAndRun) {
  TestDatabase db;
  std::vector<std::unique_ptr<DaemonProcess>> daemons;
  for (int i = 0; i < 2; ++i) {
    DaemonProcess::Options o;
    o.env = {{"DATABASE_URL", db.url()},
             {"AWC_CAS_URL", "memory://"},
             {"AWC_WORKER_ID", "d" + std::to_string(i)},
             {"AWC_WORKER_CONCURRENCY", "1"}};
    daemons.push_back(std::make_unique<DaemonProcess>(o));
  }
  for (auto& d : daemons) {
    EXPECT_TRUE(d->WaitForEvent("supervisor running")) << d->Stderr();
  }
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
  int64_t id = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }));
}

TEST(SchemaVersionProblemTest, SaysWhatIsWrongWithTheSchemasVersion) {
  std::vector<migrate::Migration> two = {{1, "0001_a", ""}, {2, "0002_b", ""}};
  EXPECT_EQ(migrate::SchemaVersionProblem("2:1", two), "");
  EXPECT_EQ(migrate::SchemaVersionProblem("1:1", two),
            "database schema is at version 1, this binary needs 2: run "
            "awcctl migrate");
  EXPECT_EQ(migrate::SchemaVersionProblem("0:0", two),
            "database schema is at version 0, this binary needs 2: run "
            "awcctl migrate");
  // A later release's migrations: fine while they are compatible.
  EXPECT_EQ(migrate::SchemaVersionProblem("3:2", two), "");
  EXPECT_EQ(migrate::SchemaVersionProblem("3:3", two),
            "database schema is at version 3, newer than this binary (2) and "
            "not compatible with it (it needs a build that knows version 3): "
            "upgrade this host");
  EXPECT_EQ(migrate::SchemaVersionProblem("", two),
            "database schema version unreadable");
  EXPECT_EQ(migrate::SchemaVersionProblem("2", two),
            "database schema version unreadable");
}

}  // namespace
}  // namespace awc::testing
