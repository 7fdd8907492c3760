// Migrations as an operator runs them: awcctl migrate and its --status,
// --dry-run, --extract-to and --sql (applied with psql, then accepted by
// the daemon in check mode), AWC_MIGRATE=check refusing a schema behind or
// ahead, and awcctl health with the database up, down, behind and ahead.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/json.h"
#include "digest/sha256.h"
#include "migrate/embedded_migrations.h"
#include "migrate/migrator.h"
#include "migrate/scripts.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

int Latest() { return migrate::EmbeddedMigrations().back().version; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last line of `text`, where a startup error is.
std::string LastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// The words of the line of a --status table that names `name`, "" when
// none does: the columns' widths follow the longest name.
std::string StatusRow(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string word, out;
    bool named = false;
    while (words >> word) {
      named = named || word == name;
      out += (out.empty() ? "" : " ") + word;
    }
    if (named) return out;
  }
  return "";
}

JsonPtr MustParse(const std::string& text) {
  Result<JsonPtr> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? std::move(*j) : JsonPtr(json_object());
}

class AwcctlMigrateTest : public ::testing::Test {
 protected:
  Env Settings() const { return {{"DATABASE_URL", db_.url()}}; }
  CommandResult Run(std::vector<std::string> args) {
    return RunAwcctl(std::move(args), Settings());
  }
  // Runs `sql_file` with psql as the test cluster's superuser.
  // Applies `sql_file`; `wrapped`: in a transaction of psql's own, as a
  // migration runner wraps each file (Flyway, Liquibase, dbmate).
  CommandResult Psql(const std::string& sql_file, bool wrapped = false) {
    std::vector<std::string> args = {"-X", "-q", "-v", "ON_ERROR_STOP=1"};
    if (wrapped) args.push_back("--single-transaction");
    for (const std::string& a : {std::string("-f"), sql_file, db_.url()}) {
      args.push_back(a);
    }
    return RunProcess(PsqlPath(), args, {});
  }
  DaemonProcess::Options CheckMode() const {
    DaemonProcess::Options o = FleetOptions(db_, 1, {{"AWC_MIGRATE", "check"}});
    o.binary = ShippedDaemonPath();
    return o;
  }

  TestDatabase db_;
};

TEST_F(AwcctlMigrateTest, StatusDryRunAndApply) {
  CommandResult status = Run({"migrate", "--status", "--json"});
  ASSERT_EQ(status.code, 0) << status.err;
  JsonPtr doc = MustParse(status.out);
  EXPECT_EQ(Int(doc.get(), "version"), 0);
  EXPECT_EQ(Int(doc.get(), "binary_version"), Latest());
  const json_t* list = json_object_get(doc.get(), "migrations");
  ASSERT_EQ(json_array_size(list), migrate::EmbeddedMigrations().size());
  for (size_t i = 0; i < json_array_size(list); ++i) {
    const json_t* m = json_array_get(list, i);
    const migrate::Migration& e = migrate::EmbeddedMigrations()[i];
    EXPECT_EQ(Str(m, "name"), e.name);
    EXPECT_EQ(Str(m, "state"), "pending");
    EXPECT_EQ(Str(m, "checksum"), digest::Sha256::HexOf(e.sql));
  }
  CommandResult dry = Run({"migrate", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would apply 0001_job_queue\n"), std::string::npos);
  EXPECT_EQ(db_.Scalar("SELECT to_regnamespace('awc') IS NULL"), "t");

  CommandResult apply = Run({"migrate", "--json"});
  ASSERT_EQ(apply.code, 0) << apply.err;
  JsonPtr applied = MustParse(apply.out);
  EXPECT_EQ(json_array_size(json_object_get(applied.get(), "applied")),
            migrate::EmbeddedMigrations().size());
  EXPECT_EQ(Int(applied.get(), "version"), Latest());

  status = Run({"migrate", "--status"});
  ASSERT_EQ(status.code, 0);
  EXPECT_NE(status.out.find("schema is at version " + std::to_string(Latest()) +
                            ", this binary's latest is " +
                            std::to_string(Latest()) + " (0 pending)"),
            std::string::npos)
      << status.out;
  EXPECT_EQ(status.out.find("pending  "), std::string::npos) << status.out;
  EXPECT_NE(Run({"migrate", "--dry-run"}).out.find("nothing to apply"),
            std::string::npos);

  // A changed file shows as changed; a newer schema's migration as unknown.
  db_.Exec("UPDATE awc.schema_migrations SET checksum = 'x' WHERE version = 1");
  db_.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'y')");
  status = Run({"migrate", "--status"});
  EXPECT_EQ(status.code, 0);
  EXPECT_TRUE(StatusRow(status.out, "0001_job_queue")
                  .starts_with("1 0001_job_queue changed "))
      << status.out;
  EXPECT_TRUE(StatusRow(status.out, "9999_future")
                  .starts_with("9999 9999_future unknown "))
      << status.out;
  CommandResult refused = Run({"migrate"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("newer than this build ("), std::string::npos)
      << refused.err;
}

TEST_F(AwcctlMigrateTest, ExtractToWritesTheFilesAndNeverOverwritesOthers) {
  TempDir dir;
  std::string to = dir.path() + "/migrations";
  CommandResult r = RunAwcctl({"migrate", "--extract-to", to}, {});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
    std::string path = to + "/" + m.name + ".sql";
    EXPECT_EQ(ReadFile(path), migrate::PlainSql(m)) << path;
    EXPECT_NE(r.out.find(path + "\n"), std::string::npos);
  }
  // Again: the same files are fine.
  EXPECT_EQ(RunAwcctl({"migrate", "--extract-to", to}, {}).code, 0);
  // A file that differs is not replaced.
  std::string first = std::string(migrate::EmbeddedMigrations()[0].name);
  dir.Write("migrations/" + first + ".sql", "-- mine\n");
  CommandResult clash = RunAwcctl({"migrate", "--extract-to", to}, {});
  EXPECT_EQ(clash.code, 1);
  EXPECT_NE(clash.err.find("exists with other content; not overwritten"),
            std::string::npos)
      << clash.err;
  EXPECT_EQ(ReadFile(to + "/" + first + ".sql"), "-- mine\n");
}

TEST_F(AwcctlMigrateTest, TheSqlBundleAppliedWithPsqlIsAcceptedInCheckMode) {
  // No database is needed to print the whole bundle.
  CommandResult sql = RunAwcctl({"migrate", "--sql"}, {});
  ASSERT_EQ(sql.code, 0) << sql.err;
  TempDir dir;
  dir.Write("bundle.sql", sql.out);
  // Check mode refuses the empty database first, and creates nothing.
  CommandResult behind = RunProcess(ShippedDaemonPath(), {}, CheckMode().env);
  EXPECT_EQ(behind.code, 1);
  EXPECT_EQ(LastLine(behind.err),
            "awc-worker: schema is at version 0, this binary needs " +
                std::to_string(Latest()) + ": run awcctl migrate");
  EXPECT_EQ(db_.Scalar("SELECT to_regnamespace('awc') IS NULL"), "t");

  CommandResult applied = Psql(dir.path() + "/bundle.sql");
  ASSERT_EQ(applied.code, 0) << applied.err << applied.out;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));

  DaemonProcess daemon(CheckMode());
  ASSERT_TRUE(daemon.WaitForEvent("supervisor running")) << daemon.Stderr();
  int64_t id = db_.Enqueue("gc_sweep", R"({"tenant_id": "nobody"})");
  EXPECT_TRUE(WaitUntil([&] { return db_.JobState(id) == "FAILED"; }));
  // The bundle again: refused as a whole by its guard, nothing changed.
  CommandResult again = Psql(dir.path() + "/bundle.sql");
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("already applied: 0001_job_queue"),
            std::string::npos)
      << again.err;
  // And awcctl agrees the schema is its own.
  EXPECT_EQ(RunAwcctl({"migrate", "--status"}, Settings()).code, 0);
  EXPECT_NE(RunAwcctl({"migrate", "--sql", "--pending"}, Settings())
                .err.find("nothing is pending"),
            std::string::npos);
}

// The extracted files, applied one by one in a transaction each, as an
// external runner does, leave a schema the daemon accepts in check mode;
// none opens a transaction or takes a lock of its own, which such runners
// refuse.
TEST_F(AwcctlMigrateTest, ExtractedFilesAppliedWithPsqlAreAcceptedInCheckMode) {
  TempDir dir;
  std::string to = dir.path() + "/migrations";
  ASSERT_EQ(RunAwcctl({"migrate", "--extract-to", to}, {}).code, 0);
  for (const migrate::Migration& m : migrate::EmbeddedMigrations()) {
    std::string text = ReadFile(to + "/" + m.name + ".sql");
    EXPECT_EQ(text.find("\nBEGIN;"), std::string::npos) << m.name;
    EXPECT_EQ(text.find("\nCOMMIT;"), std::string::npos) << m.name;
    EXPECT_EQ(text.find("pg_advisory"), std::string::npos) << m.name;
    CommandResult applied = Psql(to + "/" + m.name + ".sql", /*wrapped=*/true);
    ASSERT_EQ(applied.code, 0) << m.name << ": " << applied.err;
    EXPECT_EQ(applied.err.find("WARNING"), std::string::npos) << applied.err;
  }
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schema_migrations WHERE "
                    "compatible_from IS NULL"),
            0);
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
  EXPECT_EQ(RunAwcctl({"migrate", "--status"}, Settings()).code, 0);
  DaemonProcess daemon(CheckMode());
  ASSERT_TRUE(daemon.WaitForEvent("supervisor running")) << daemon.Stderr();
  int64_t id = db_.Enqueue("gc_sweep", R"({"tenant_id": "nobody"})");
  EXPECT_TRUE(WaitUntil([&] { return db_.JobState(id) == "FAILED"; }));
  // A file applied twice refuses and changes nothing.
  const migrate::Migration& first = migrate::EmbeddedMigrations().front();
  CommandResult again = Psql(to + "/" + first.name + ".sql");
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("already applied: " + std::string(first.name)),
            std::string::npos)
      << again.err;
}

// --sql --no-transaction: the same unwrapped migrations in one script, which
// a runner applies in a transaction of its own.
TEST_F(AwcctlMigrateTest, TheUnwrappedSqlIsAcceptedInCheckMode) {
  CommandResult usage = RunAwcctl({"migrate", "--no-transaction"}, {});
  EXPECT_EQ(usage.code, 2) << usage.err;
  CommandResult sql = RunAwcctl({"migrate", "--sql", "--no-transaction"}, {});
  ASSERT_EQ(sql.code, 0) << sql.err;
  EXPECT_EQ(sql.out.find("\nBEGIN;"), std::string::npos);
  EXPECT_EQ(sql.out.find("pg_advisory"), std::string::npos);
  TempDir dir;
  dir.Write("unwrapped.sql", sql.out);
  CommandResult applied = Psql(dir.path() + "/unwrapped.sql", true);
  ASSERT_EQ(applied.code, 0) << applied.err;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
  DaemonProcess daemon(CheckMode());
  ASSERT_TRUE(daemon.WaitForEvent("supervisor running")) << daemon.Stderr();
}

TEST_F(AwcctlMigrateTest, APendingBundleCompletesAPartlyMigratedSchema) {
  // Everything but the latest migration, applied by the runner.
  std::vector<migrate::Migration> older = migrate::EmbeddedMigrations();
  older.pop_back();
  {
    auto conn = db_.Connect();
    ASSERT_TRUE(migrate::Migrate(*conn, older).ok());
  }
  CommandResult pending =
      RunAwcctl({"migrate", "--sql", "--pending"}, Settings());
  ASSERT_EQ(pending.code, 0) << pending.err;
  const migrate::Migration& last = migrate::EmbeddedMigrations().back();
  EXPECT_NE(pending.out.find("-- " + std::string(last.name) + "\n"),
            std::string::npos);
  EXPECT_EQ(pending.out.find("-- " + std::string(older[0].name) + "\n"),
            std::string::npos);
  TempDir dir;
  dir.Write("pending.sql", pending.out);
  CommandResult applied = Psql(dir.path() + "/pending.sql");
  ASSERT_EQ(applied.code, 0) << applied.err;
  CommandResult health = Run({"health"});
  EXPECT_EQ(health.code, 0) << health.out << health.err;
}

TEST_F(AwcctlMigrateTest, CheckModeRefusesANewerSchema) {
  db_.Migrate();
  db_.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'x')");
  CommandResult ahead = RunProcess(ShippedDaemonPath(), {}, CheckMode().env);
  EXPECT_EQ(ahead.code, 1);
  EXPECT_EQ(LastLine(ahead.err),
            "awc-worker: database schema is at version 9999, newer than this "
            "build (" +
                std::to_string(Latest()) +
                "), and its migration 9999_future needs a build that knows "
                "version 9999 or later: upgrade this host "
                "(docs/operations.md, \"Rolling upgrades\")");
}

// --- health ----------------------------------------------------------------

TEST_F(AwcctlMigrateTest, HealthUpBehindAheadAndDown) {
  // Behind: reachable, the schema check fails and says what to do.
  CommandResult behind = Run({"health", "--json"});
  EXPECT_EQ(behind.code, 1) << behind.err;
  JsonPtr doc = MustParse(behind.out);
  EXPECT_FALSE(json_is_true(json_object_get(doc.get(), "ready")));
  const json_t* checks = json_object_get(doc.get(), "checks");
  ASSERT_EQ(json_array_size(checks), 3u);
  EXPECT_EQ(Str(json_array_get(checks, 0), "name"), "database");
  EXPECT_TRUE(json_is_true(json_object_get(json_array_get(checks, 0), "ok")));
  EXPECT_EQ(Str(json_array_get(checks, 1), "name"), "writable");
  EXPECT_TRUE(json_is_true(json_object_get(json_array_get(checks, 1), "ok")));
  EXPECT_EQ(Str(json_array_get(checks, 2), "name"), "schema");
  EXPECT_FALSE(json_is_true(json_object_get(json_array_get(checks, 2), "ok")));
  EXPECT_EQ(Str(json_array_get(checks, 2), "detail"),
            "schema is at version 0, this binary needs " +
                std::to_string(Latest()) + ": run awcctl migrate");

  // Up.
  db_.Migrate();
  CommandResult up = Run({"health"});
  EXPECT_EQ(up.code, 0) << up.out << up.err;
  EXPECT_NE(
      up.out.find("schema    ok      version " + std::to_string(Latest())),
      std::string::npos)
      << up.out;
  EXPECT_TRUE(up.out.ends_with("\nready\n")) << up.out;
  EXPECT_NE(up.out.find("horizon   ok      not held\n"), std::string::npos)
      << up.out;
  // A session idle in transaction holds the horizon: named, and ready
  // all the same (the workers keep claiming).
  {
    std::string pid;
    auto pin = db_.HoldHorizon("nightly-report", &pid);
    CommandResult pinned = Run({"health"});
    EXPECT_EQ(pinned.code, 0) << pinned.out << pinned.err;
    EXPECT_NE(
        pinned.out.find("horizon   ok      held by session pid " + pid + " ("),
        std::string::npos)
        << pinned.out;
    EXPECT_NE(pinned.out.find("[nightly-report, "), std::string::npos)
        << pinned.out;
    pin->Rollback();
  }

  // Ahead.
  db_.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'x')");
  CommandResult ahead = Run({"health"});
  EXPECT_EQ(ahead.code, 1);
  EXPECT_NE(ahead.out.find("schema    FAIL    database schema is at version "
                           "9999, newer than this build ("),
            std::string::npos)
      << ahead.out;
  EXPECT_TRUE(ahead.out.ends_with("\nnot ready\n")) << ahead.out;

  // Down: nothing listens on the port; every check is named.
  const std::string secret = "Health-S3cret-pw";
  CommandResult down =
      RunAwcctl({"health", "--fleet"},
                {{"DATABASE_URL", "postgresql://u:" + secret + "@127.0.0.1:" +
                                      std::to_string(FreePort()) + "/x"}});
  EXPECT_EQ(down.code, 1);
  EXPECT_NE(down.out.find("database  FAIL    database connection failed"),
            std::string::npos)
      << down.out;
  // libpq's two lines are one, the second a clause of its own.
  EXPECT_NE(down.out.find("Connection refused; Is the server running on "
                          "that host"),
            std::string::npos)
      << down.out;
  EXPECT_NE(down.out.find("writable  FAIL    not checked: no database"),
            std::string::npos)
      << down.out;
  EXPECT_NE(down.out.find("schema    FAIL    not checked: no database"),
            std::string::npos)
      << down.out;
  EXPECT_NE(down.out.find("fleet     FAIL    not checked: no database"),
            std::string::npos)
      << down.out;
  EXPECT_EQ(down.out.find(secret), std::string::npos);
  EXPECT_EQ(down.err.find(secret), std::string::npos);
}

}  // namespace
}  // namespace awc::testing
