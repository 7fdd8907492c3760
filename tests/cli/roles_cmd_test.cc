// The role model: roles created from `awcctl roles --sql`, migrations
// applied as the migrator, the fleet (its scheduler too) and every awcctl
// verb that does not migrate run as the runtime role — which is shown
// unable to change the schema.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <sstream>
#include <string>
#include <vector>

#include "migrate/embedded_migrations.h"
#include "migrate/scripts.h"
#include "tests/support/console_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

// Role names of one test (roles are global to the cluster, tests run in
// parallel); dropped on destruction, which must follow the database's.
class TestRoles {
 public:
  TestRoles() {
    static std::atomic<int> counter{0};
    std::string p = "awc_r" + std::to_string(getpid()) + "_" +
                    std::to_string(counter++) + "_";
    owner = p + "owner";
    migrator = p + "migrator";
    runtime = p + "runtime";
  }
  ~TestRoles() {
    auto admin = db::PgConn::Connect(ClusterUrl("postgres"), "awc-test-admin");
    if (!admin.ok()) return;
    for (const std::string* r : {&runtime, &migrator, &owner}) {
      Status s = (*admin)->Exec("DROP ROLE IF EXISTS " + *r).status();
      if (!s.ok()) ADD_FAILURE() << s.message();
    }
  }

  std::string owner, migrator, runtime;
};

// How to take the newest migration's objects away again, and a query that
// is true while they are still away; `owner` owns what they make again.
// One entry per migration that may be the newest one: the test that needs
// it says so when it is missing.
struct LastMigrationUndo {
  std::vector<std::string> statements;
  std::string still_undone;
};

LastMigrationUndo UndoOfLastMigration(int version, const std::string& owner) {
  switch (version) {
    case 6: {  // the console's indexes
      LastMigrationUndo undo;
      for (const char* index :
           {"jobs_kind_state_idx", "jobs_dead_reason_idx",
            "audit_events_event_id_idx", "audit_events_subject_id_idx",
            "audit_events_tenant_id_idx", "snapshots_state_idx",
            "gc_epochs_tenant_idx"}) {
        undo.statements.push_back(std::string("DROP INDEX awc.") + index);
      }
      undo.still_undone =
          "SELECT to_regclass('awc.jobs_kind_state_idx') IS NULL";
      return undo;
    }
    case 7:  // the GC plan's statistics
      return {{"DROP STATISTICS awc.objects_touched_stats"},
              "SELECT NOT EXISTS (SELECT 1 FROM pg_statistic_ext WHERE "
              "stxname = 'objects_touched_stats')"};
    case 10:  // the lease token's sequence dropped
      return {{"CREATE SEQUENCE awc.job_lease_token_seq",
               "ALTER SEQUENCE awc.job_lease_token_seq OWNER TO " + owner},
              "SELECT to_regclass('awc.job_lease_token_seq') IS NOT NULL"};
    case 8:  // the console's indexes for a backlog
      return {{"DROP INDEX awc.jobs_pending_ready_idx",
               "DROP INDEX awc.jobs_dead_id_idx"},
              "SELECT to_regclass('awc.jobs_pending_ready_idx') IS NULL"};
    case 9:  // the console's indexes of one state each
      return {{"DROP INDEX awc.jobs_finished_kind_idx",
               "DROP INDEX awc.jobs_pending_kind_idx",
               "CREATE INDEX jobs_kind_state_idx ON awc.jobs (kind, state, id) "
               "INCLUDE (run_at, dead_reason)"},
              "SELECT to_regclass('awc.jobs_finished_kind_idx') IS NULL"};
    case 21:  // what migrations are compatible with; the workers' builds
      return {{"ALTER TABLE awc.schema_migrations DROP COLUMN compatible_from",
               "ALTER TABLE awc.workers DROP COLUMN build, DROP COLUMN "
               "schema_version, DROP COLUMN kinds"},
              "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid "
              "= 'awc.workers'::regclass AND attname = 'kinds' AND NOT "
              "attisdropped)"};
    case 22:  // the error history
      return {
          {"DROP TRIGGER jobs_error_history ON awc.jobs",
           "DROP FUNCTION awc.record_job_error()", "DROP TABLE awc.job_errors"},
          "SELECT to_regclass('awc.job_errors') IS NULL"};
    case 23:  // priorities and limits per kind
      return {{"DROP TRIGGER jobs_default_priority ON awc.jobs",
               "DROP FUNCTION awc.jobs_default_priority()",
               "ALTER TABLE awc.jobs DROP COLUMN priority",
               "DROP TABLE awc.kind_settings"},
              "SELECT to_regclass('awc.kind_settings') IS NULL"};
    case 12:  // worker_crashed among the dead reasons
      return {{"ALTER TABLE awc.jobs DROP CONSTRAINT jobs_dead_reason_check",
               "ALTER TABLE awc.jobs ADD CONSTRAINT jobs_dead_reason_check "
               "CHECK (dead_reason IN ('malformed_payload', 'unknown_kind', "
               "'subject_missing', 'attempts_exhausted', 'handler_failed')) "
               "NOT VALID"},
              "SELECT pg_get_constraintdef(oid) NOT LIKE '%worker_crashed%' "
              "FROM pg_constraint WHERE conname = 'jobs_dead_reason_check'"};
    case 14:  // closures as a DAG
      return {{"DROP VIEW awc.snapshot_objects",
               "DROP FUNCTION awc.snapshot_objects_write()",
               "DROP FUNCTION awc.dag_closure(text, bytea)",
               "DROP TRIGGER snapshots_dropped ON awc.snapshots",
               "DROP FUNCTION awc.snapshots_dropped()",
               "DROP TABLE awc.dropped_roots", "DROP TABLE awc.object_edges",
               "ALTER TABLE awc.legacy_closures RENAME TO snapshot_objects",
               "ALTER INDEX awc.legacy_closures_pkey RENAME TO "
               "snapshot_objects_pkey",
               "ALTER INDEX awc.legacy_closures_digest_idx RENAME TO "
               "snapshot_objects_digest_idx",
               "ALTER TABLE awc.snapshots DROP COLUMN holds_refs",
               "DROP INDEX awc.objects_gc_idx",
               "CREATE INDEX objects_gc_idx ON awc.objects (tenant_id, "
               "(greatest(created_at, last_seen_at))) WHERE state = 'LIVE'",
               "ALTER TABLE awc.objects DROP COLUMN refs, DROP COLUMN "
               "manifest_entries, DROP COLUMN verified_at, DROP COLUMN "
               "damaged_at"},
              "SELECT to_regclass('awc.object_edges') IS NULL AND "
              "to_regclass('awc.legacy_closures') IS NULL"};
    case 16:  // the closure's count: a partial index and two functions
      return {{"DROP INDEX awc.object_edges_manifest_idx",
               "DROP FUNCTION awc.dag_closure_stats(text, bytea)",
               "DROP FUNCTION awc.dag_manifests(text, bytea)"},
              "SELECT to_regclass('awc.object_edges_manifest_idx') IS NULL "
              "AND to_regprocedure('awc.dag_manifests(text, bytea)') IS NULL "
              "AND to_regprocedure('awc.dag_closure_stats(text, bytea)') IS "
              "NULL"};
    case 17:  // inventory reconciliation's runs
      return {{"DROP TABLE awc.reconcile_runs"},
              "SELECT to_regclass('awc.reconcile_runs') IS NULL"};
    case 18:  // the workers' progress
      return {{"ALTER TABLE awc.workers DROP COLUMN progress"},
              "SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns "
              "WHERE table_schema = 'awc' AND table_name = 'workers' AND "
              "column_name = 'progress')"};
    case 19:  // the claim cursor's notifications
      return {{"DROP TRIGGER jobs_notify ON awc.jobs",
               "CREATE TRIGGER jobs_notify AFTER INSERT ON awc.jobs FOR EACH "
               "STATEMENT EXECUTE FUNCTION awc.jobs_notify()",
               "DROP FUNCTION awc.jobs_notify_inserted()",
               "DROP TRIGGER jobs_notify_requeued ON awc.jobs",
               "DROP FUNCTION awc.jobs_notify_requeued()",
               "DROP FUNCTION awc.jobs_ready_micros(timestamptz)"},
              "SELECT to_regprocedure('awc.jobs_ready_micros(timestamptz)') "
              "IS NULL AND to_regprocedure('awc.jobs_notify_requeued()') IS "
              "NULL"};
    case 20:  // jobs_ready_micros declared for what it is
      return {{"ALTER FUNCTION awc.jobs_ready_micros(timestamptz) IMMUTABLE"},
              "SELECT provolatile = 'i' FROM pg_proc WHERE oid = "
              "'awc.jobs_ready_micros(timestamptz)'::regprocedure"};
    case 15:  // file entries counted lazily
      return {{"DROP INDEX awc.objects_uncounted_idx",
               "ALTER TABLE awc.objects DROP COLUMN entries_counted"},
              "SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns "
              "WHERE table_schema = 'awc' AND table_name = 'objects' AND "
              "column_name = 'entries_counted')"};
    case 13:  // paused kinds, and the claim's index of each kind
      return {{"DROP TABLE awc.paused_kinds",
               "DROP INDEX awc.jobs_pending_kind_run_idx"},
              "SELECT to_regclass('awc.paused_kinds') IS NULL AND "
              "to_regclass('awc.jobs_pending_kind_run_idx') IS NULL"};
    case 11:  // the limits of awc.schedules
      return {{"ALTER TABLE awc.schedules DROP CONSTRAINT "
               "schedules_next_run_at_in_range",
               "ALTER TABLE awc.schedules DROP CONSTRAINT "
               "schedules_kind_at_most_128_bytes",
               "ALTER TABLE awc.schedules DROP CONSTRAINT "
               "schedules_payload_is_object"},
              "SELECT NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname "
              "= 'schedules_next_run_at_in_range')"};
    default:
      return {};
  }
}

class RolesTest : public ::testing::Test {
 protected:
  std::string UrlAs(const std::string& role, const std::string& password) {
    return "postgresql://" + role + ":" + password + "@" +
           EnvOr("PGHOST", "localhost") + ":" + EnvOr("PGPORT", "5432") + "/" +
           db_.name();
  }
  std::string Migrator() { return UrlAs(roles_.migrator, "Migr4tor-pw"); }
  std::string Runtime() { return UrlAs(roles_.runtime, "Runt1me-pw"); }

  // awcctl as the runtime role, with the file store of the fleet.
  CommandResult AsRuntime(std::vector<std::string> args) {
    args.insert(args.begin(), {"-d", Runtime()});
    return RunAwcctl(std::move(args),
                     {{"AWC_CAS_URL", "file://" + store_.path()}});
  }
  void ExpectOk(std::vector<std::string> args) {
    CommandResult r = AsRuntime(args);
    EXPECT_EQ(r.code, 0) << ::testing::PrintToString(args) << "\n"
                         << r.out << r.err;
    EXPECT_EQ(r.err.find("permission denied"), std::string::npos) << r.err;
  }
  // `sql` as the runtime role: refused for want of privilege (42501).
  void ExpectDenied(db::PgConn& conn, const std::string& sql) {
    Result<db::PgResult> r = conn.Exec(sql);
    EXPECT_FALSE(r.ok()) << sql;
    EXPECT_EQ(conn.last_sqlstate(), "42501")
        << sql << ": " << r.status().message();
  }

  TestRoles roles_;  // destroyed after the database
  TestDatabase db_;
  TempDir store_;
};

TEST_F(RolesTest, TheRuntimeRoleRunsEverythingButCannotChangeTheSchema) {
  // 1. The roles, from awcctl's own statements, applied twice by psql.
  CommandResult sql =
      RunAwcctl({"roles", "--sql", "--owner", roles_.owner, "--migrator",
                 roles_.migrator, "--runtime", roles_.runtime},
                {});
  ASSERT_EQ(sql.code, 0) << sql.err;
  TempDir dir;
  dir.Write("roles.sql", sql.out);
  for (int i = 0; i < 2; ++i) {
    CommandResult applied =
        RunProcess(PsqlPath(),
                   {"-X", "-q", "-v", "ON_ERROR_STOP=1", "-f",
                    dir.path() + "/roles.sql", db_.url()},
                   {});
    ASSERT_EQ(applied.code, 0) << applied.err;
  }
  db_.Exec("ALTER ROLE " + roles_.migrator + " PASSWORD 'Migr4tor-pw'");
  db_.Exec("ALTER ROLE " + roles_.runtime + " PASSWORD 'Runt1me-pw'");

  // 2. The migrator migrates; what it creates belongs to the owner.
  CommandResult migrated = RunAwcctl({"-d", Migrator(), "migrate"}, {});
  ASSERT_EQ(migrated.code, 0) << migrated.err;
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.schema_migrations"),
            static_cast<int64_t>(migrate::EmbeddedMigrations().size()));
  EXPECT_EQ(db_.Int("SELECT count(*) FROM pg_tables WHERE schemaname = 'awc' "
                    "AND tableowner <> $1",
                    {roles_.owner}),
            0);
  EXPECT_GT(db_.Int("SELECT count(*) FROM pg_tables WHERE schemaname = 'awc'"),
            10);

  // 3. The runtime can change no table, no schema, no migration record.
  {
    Result<std::unique_ptr<db::PgConn>> conn =
        db::PgConn::Connect(Runtime(), "awc-test-runtime");
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    for (const char* ddl :
         {"CREATE TABLE awc.intruder (a int)",
          "CREATE TABLE public.intruder (a int)", "CREATE SCHEMA intruder",
          "ALTER TABLE awc.jobs ADD COLUMN x int",
          "CREATE INDEX ON awc.jobs (kind)", "DROP TABLE awc.audit_events",
          "TRUNCATE awc.jobs",
          "INSERT INTO awc.schema_migrations (version, name, checksum) VALUES "
          "(9999, 'x', 'y')",
          "DELETE FROM awc.schema_migrations"}) {
      ExpectDenied(**conn, ddl);
    }
    // Rows, it may read and write.
    EXPECT_TRUE(
        (*conn)->Exec("SELECT count(*) FROM awc.schema_migrations").ok());
  }
  // A migration left to apply needs DDL: the runtime's migrate fails and
  // changes nothing; the migrator's applies it.
  const migrate::Migration& last = migrate::EmbeddedMigrations().back();
  db_.Exec("DELETE FROM awc.schema_migrations WHERE version = $1",
           {std::to_string(last.version)});
  // Its objects go too, so that applying it needs DDL again. The check
  // afterwards shows that the refused run created none of them.
  const LastMigrationUndo undo =
      UndoOfLastMigration(last.version, roles_.owner);
  ASSERT_FALSE(undo.statements.empty())
      << "tell this test how to undo migration " << last.version;
  for (const std::string& statement : undo.statements) db_.Exec(statement);
  CommandResult denied = AsRuntime({"migrate"});
  EXPECT_EQ(denied.code, 1);
  EXPECT_NE(denied.err.find("(SQLSTATE 42501)"), std::string::npos)
      << denied.err;
  EXPECT_EQ(db_.Scalar(undo.still_undone), "t");
  // The daemon in check mode refuses to start on it rather than migrate.
  CommandResult check = RunProcess(ShippedDaemonPath(), {},
                                   {{"DATABASE_URL", Runtime()},
                                    {"AWC_CAS_URL", "memory://"},
                                    {"AWC_MIGRATE", "check"}});
  EXPECT_EQ(check.code, 1);
  EXPECT_NE(check.err.find("this binary needs " + std::to_string(last.version) +
                           ": run awcctl migrate"),
            std::string::npos)
      << check.err;
  ASSERT_EQ(RunAwcctl({"-d", Migrator(), "migrate"}, {}).code, 0);

  // 4. The fleet runs as the runtime, in the default auto mode: nothing is
  // pending, so nothing is created. Its scheduler takes the leader lease
  // and creates and fires every built-in schedule, prune's deletions
  // included.
  ASSERT_TRUE(InitStore("file://" + store_.path()));
  DaemonProcess::Options o =
      FleetOptions(db_, 2,
                   {{"DATABASE_URL", Runtime()},
                    {"AWC_CAS_URL", "file://" + store_.path()},
                    {"AWC_SCHEDULER", "on"}});
  DaemonProcess fleet(o);
  ASSERT_TRUE(fleet.WaitForEvent("supervisor running")) << fleet.Stderr();
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.schedules WHERE builtin AND "
               "last_result ->> 'result' = 'ok'") == 7;
  })) << fleet.Stderr();
  EXPECT_EQ(db_.Scalar("SELECT holder LIKE '%-scheduler/%' FROM "
                       "awc.leader_leases WHERE name = 'scheduler'"),
            "t");

  // 5. Every verb that does not migrate, as the runtime.
  TempDir tree;
  tree.Write("README", "hello\n");
  tree.Write("src/main.c", "int main(void) { return 0; }\n");
  CommandResult imported =
      AsRuntime({"import", "--tenant", "acme", tree.path()});
  ASSERT_EQ(imported.code, 0) << imported.err;
  std::string snapshot = imported.out.substr(0, imported.out.size() - 1);
  EXPECT_TRUE(WaitUntil([&] {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {snapshot}) == "READY";
  })) << fleet.Stderr();
  CommandResult done = AsRuntime({"enqueue", "test_complete", "{}", "--force"});
  ASSERT_EQ(done.code, 0) << done.err;
  CommandResult dead =
      AsRuntime({"enqueue", "gc_sweep", R"({"tenant_id": "nobody"})"});
  ASSERT_EQ(dead.code, 0) << dead.err;
  std::string done_id = done.out.substr(0, done.out.size() - 1);
  std::string dead_id = dead.out.substr(0, dead.out.size() - 1);
  ASSERT_TRUE(WaitUntil([&] {
    return db_.JobState(std::stoll(done_id)) == "COMPLETED" &&
           db_.JobState(std::stoll(dead_id)) == "FAILED";
  })) << fleet.Stderr();
  CommandResult later = AsRuntime(
      {"enqueue", "gc_sweep", R"({"tenant_id": "acme"})", "--delay", "3600"});
  ASSERT_EQ(later.code, 0) << later.err;
  std::string later_id = later.out.substr(0, later.out.size() - 1);

  ExpectOk({"health", "--fleet"});
  ExpectOk({"workers"});
  ExpectOk({"stats"});
  {
    ConsoleProcess console(Runtime(), "");
    ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
    for (const char* page : {"/", "/jobs", "/dead", "/snapshots", "/gc",
                             "/audit", "/api/overview"}) {
      HttpReply r = console.Get(page);
      EXPECT_EQ(r.status, 200) << page << r.body;
    }
  }
  ExpectOk({"jobs"});
  ExpectOk({"jobs", "show", done_id});
  ExpectOk({"jobs", "cancel", later_id});
  ExpectOk({"jobs", "retry", later_id});
  ExpectOk({"dlq", "list", "--reason", "subject_missing"});
  ExpectOk({"dlq", "retry", "--all", "--dry-run"});
  ExpectOk({"dlq", "retry", dead_id});
  ASSERT_TRUE(
      WaitUntil([&] { return db_.JobState(std::stoll(dead_id)) == "FAILED"; }));
  ExpectOk({"dlq", "purge", "--kind", "gc_sweep"});
  ExpectOk({"migrate", "--status"});
  ExpectOk({"migrate", "--dry-run"});
  ExpectOk({"migrate", "--sql", "--pending"});
  ExpectOk({"migrate"});  // nothing pending: no DDL
  EXPECT_EQ(db_.JobState(std::stoll(dead_id)), "");
  ExpectOk({"kinds"});
  ExpectOk({"kinds", "pause", "gc_sweep", "--reason", "roles test"});
  ExpectOk({"kinds", "resume", "gc_sweep"});
  ExpectOk({"schedules"});
  ExpectOk({"schedules", "pause", "gc"});
  ExpectOk({"schedules", "resume", "gc"});
  ExpectOk({"schedules", "set", "gc", "@every 2h"});
  ExpectOk(
      {"schedules", "add", "tick", "@daily", "test_complete", "{}", "--force"});
  ExpectOk({"schedules", "run", "tick"});
  // The leader fires it at once, as the runtime.
  EXPECT_TRUE(WaitUntil([&] {
    return db_.Scalar(
               "SELECT state FROM awc.jobs WHERE dedupe_key = "
               "'schedule:tick'") == "COMPLETED";
  })) << fleet.Stderr();
  ExpectOk({"schedules", "remove", "tick"});
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.workers WHERE state <> "
                    "'stopped'"),
            2);

  fleet.Signal(SIGTERM);
  std::optional<int> st = fleet.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << fleet.Stderr();
  EXPECT_EQ(fleet.Stderr().find("permission denied"), std::string::npos)
      << fleet.Stderr();
}

// A name PostgreSQL reserves would make statements psql refuses: awcctl
// refuses it first, a usage error naming the option, for every option that
// takes a role name.
TEST(RolesNamesTest, NamesPostgreSqlReservesAreUsageErrors) {
  for (const char* option : {"--owner", "--migrator", "--runtime"}) {
    for (const char* name :
         {"current_user", "session_user", "current_role", "user", "none", "all",
          "public", "pg_monitor", "left"}) {
      CommandResult r = RunAwcctl({"roles", "--sql", option, name}, {});
      EXPECT_EQ(r.code, 2) << option << " " << name << "\n" << r.out;
      EXPECT_EQ(r.out, "") << option << " " << name;
      EXPECT_TRUE(r.err.starts_with("awcctl: " + std::string(option) + ": \"" +
                                    name +
                                    "\" is reserved in PostgreSQL and cannot "
                                    "name a role\n"))
          << r.err;
      EXPECT_NE(r.err.find("usage: awcctl roles"), std::string::npos) << r.err;
    }
  }
  CommandResult bad = RunAwcctl({"roles", "--sql", "--migrator", "A-b"}, {});
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(
      bad.err.starts_with("awcctl: --migrator: \"A-b\" cannot name "
                          "a role: use 1 to 63 of a-z, 0-9 and _, "
                          "not starting with a digit\n"))
      << bad.err;
}

// Every key word the server reserves (reserved, or reserved but allowed as
// a function or type name: SET ROLE takes neither) is refused, so a key
// word a newer PostgreSQL adds shows up here.
TEST(RolesNamesTest, EveryKeyWordTheServerReservesIsRefused) {
  TestDatabase db;
  std::string words = db.Scalar(
      "SELECT string_agg(word, ' ' ORDER BY word) FROM pg_get_keywords() "
      "WHERE catcode IN ('R', 'T')");
  std::istringstream in(words);
  int n = 0;
  for (std::string word; in >> word; ++n) {
    EXPECT_FALSE(migrate::CheckRoleName(word).ok()) << word;
  }
  EXPECT_GT(n, 90);
}

}  // namespace
}  // namespace awc::testing
