// What awc.schedules keeps out since migration 0011 — a next_run_at the
// scheduler cannot compute with, a job beyond the limits of every job —
// and how the migration repairs the rows that broke them before, so it
// cannot fail on a live database (docs/scheduler.md, "Schedules are
// data").
#include <gtest/gtest.h>

#include "migrate/migrator.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// Migrates `db` up to `version` only.
void MigrateTo(TestDatabase& db, int version) {
  std::vector<migrate::Migration> before;
  for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
    if (m.version <= version) before.push_back(m);
  }
  auto conn = db.Connect();
  auto applied = migrate::Migrate(*conn, before);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
}

TEST(ScheduleLimitsTest, TimesTheSchedulerCannotComputeWithAreRefused) {
  TestDatabase db;
  db.Migrate();
  auto conn = db.Connect();
  auto insert = [&](const std::string& next_run_at) {
    return conn
        ->Exec(
            "INSERT INTO awc.schedules (name, spec, kind, next_run_at) "
            "VALUES ('t' || md5($1), '@hourly', 'k', $1::timestamptz)",
            {next_run_at})
        .status();
  };
  for (const char* bad :
       {"-infinity", "infinity", "1969-12-31 23:59:59+00",
        "10000-01-01 00:00:00+00", "294270-01-01 00:00:00+00"}) {
    Status s = insert(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("schedules_next_run_at_in_range"),
              std::string::npos)
        << s.message();
  }
  for (const char* fine :
       {"1970-01-01 00:00:00+00", "9999-12-31 23:59:59+00"}) {
    EXPECT_TRUE(insert(fine).ok()) << fine;
  }
  db.Exec(
      "INSERT INTO awc.schedules (name, spec, kind) VALUES ('x', "
      "'@hourly', 'k')");
  EXPECT_FALSE(
      conn->Exec("UPDATE awc.schedules SET next_run_at = '-infinity'").ok());
}

TEST(ScheduleLimitsTest, TheMigrationDisablesSchedulesWhoseJobsBreakThem) {
  TestDatabase db;
  MigrateTo(db, 10);
  const std::string long_kind(300, 'k');
  db.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, payload) VALUES "
      "('long', '@hourly', $1, '{\"n\": 1}'), "
      "('list', '@hourly', 'k', '[1, null]'), "
      "('both', '@hourly', $1 || 'b', '\"x\"'), "
      "('fine', '@hourly', repeat('k', 128), '{}')",
      {long_kind});
  db.Migrate();

  // Paused, with the reason and what was cut kept in last_result; the row
  // is the operator's to fix or remove.
  EXPECT_EQ(db.Scalar("SELECT paused || ' ' || kind || ' ' || payload::text "
                      "|| ' ' || (last_result ->> 'result') FROM "
                      "awc.schedules WHERE name = 'long'"),
            "true kkkkkkkkkkkkkkkkkkkkkkkk... {\"n\": 1} error");
  EXPECT_EQ(db.Scalar("SELECT last_result ->> 'kind' FROM awc.schedules "
                      "WHERE name = 'long'"),
            long_kind);
  EXPECT_EQ(db.Scalar("SELECT last_result ->> 'error' FROM awc.schedules "
                      "WHERE name = 'long'"),
            "paused by migration 0011: kind is longer than 128 bytes (300); "
            "the whole kind is in last_result.kind");
  EXPECT_EQ(db.Scalar("SELECT paused || ' ' || payload::text || ' ' || "
                      "(last_result -> 'payload')::text || ' ' || "
                      "(last_result ->> 'error') FROM awc.schedules WHERE "
                      "name = 'list'"),
            "true {} [1, null] paused by migration 0011: the payload is not "
            "a JSON object; it is in last_result.payload");
  EXPECT_EQ(db.Scalar("SELECT (last_result ->> 'error') || ' ' || "
                      "(last_result ->> 'kind') || ' ' || (last_result -> "
                      "'payload')::text FROM awc.schedules WHERE name = "
                      "'both'"),
            "paused by migration 0011: kind is longer than 128 bytes (301); "
            "the whole kind is in last_result.kind; the payload is not a "
            "JSON object; it is in last_result.payload " +
                long_kind + "b \"x\"");
  EXPECT_EQ(db.Scalar("SELECT paused || ' ' || (last_result IS NULL) FROM "
                      "awc.schedules WHERE name = 'fine'"),
            "false true");
  for (const char* constraint :
       {"schedules_kind_at_most_128_bytes", "schedules_payload_is_object"}) {
    EXPECT_EQ(db.Scalar("SELECT convalidated FROM pg_constraint WHERE "
                        "conname = $1",
                        {constraint}),
              "t")
        << constraint;
  }
}

TEST(ScheduleLimitsTest, TheMigrationRepairsRowsThatBreakThem) {
  TestDatabase db;
  MigrateTo(db, 10);
  db.Exec(
      "INSERT INTO awc.schedules (name, spec, kind, next_run_at, paused) "
      "VALUES ('minus', '@hourly', 'k', '-infinity', false), "
      "('old', '@hourly', 'k', '1900-01-01 00:00:00+00', false), "
      "('plus', '@hourly', 'k', 'infinity', false), "
      "('far', '@hourly', 'k', '20000-01-01 00:00:00+00', true), "
      "('fine', '@hourly', 'k', now() + interval '5 minutes', false)");
  db.Exec(
      "UPDATE awc.schedules SET last_result = '{\"result\": \"ok\"}', "
      "runs = 4 WHERE name = 'minus'");
  std::string fine_before = db.Scalar(
      "SELECT to_jsonb(s) - 'updated_at' FROM awc.schedules s WHERE name = "
      "'fine'");
  db.Migrate();

  // Overdue without end: due now, as it was; its record stays.
  for (const char* name : {"minus", "old"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(db.Scalar("SELECT (next_run_at BETWEEN now() - interval '1 "
                        "minute' AND now()) || ' ' || paused FROM "
                        "awc.schedules WHERE name = $1",
                        {name}),
              "true false");
  }
  EXPECT_EQ(db.Scalar("SELECT runs || ' ' || (last_result ->> 'result') FROM "
                      "awc.schedules WHERE name = 'minus'"),
            "4 ok");
  // Never due: it never fired, and stays so, paused, with the reason;
  // resumed, it is due at once.
  for (const char* name : {"plus", "far"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(db.Scalar("SELECT (next_run_at BETWEEN now() - interval '1 "
                        "minute' AND now()) || ' ' || paused || ' ' || "
                        "(last_result ->> 'result') FROM awc.schedules WHERE "
                        "name = $1",
                        {name}),
              "true true error");
    std::string why = db.Scalar(
        "SELECT last_result ->> 'error' FROM awc.schedules WHERE name = $1",
        {name});
    EXPECT_TRUE(why.starts_with("paused by migration 0011: next_run_at "))
        << why;
    EXPECT_NE(why.find("is after 9999"), std::string::npos) << why;
  }
  EXPECT_NE(db.Scalar("SELECT last_result ->> 'error' FROM awc.schedules "
                      "WHERE name = 'plus'")
                .find("next_run_at infinity "),
            std::string::npos);
  EXPECT_EQ(db.Scalar("SELECT to_jsonb(s) - 'updated_at' FROM awc.schedules "
                      "s WHERE name = 'fine'"),
            fine_before);
  EXPECT_EQ(db.Scalar("SELECT convalidated FROM pg_constraint WHERE conname "
                      "= 'schedules_next_run_at_in_range'"),
            "t");
}

}  // namespace
}  // namespace awc::testing
