// The shipped daemon and awcctl behind a real PgBouncer in transaction
// mode, with fewer server connections than clients, so that the workers,
// the scheduler, the master's probe and awcctl share them (awc-worker(8),
// CONNECTION POOLERS): with AWC_DATABASE_POOL_MODE=transaction every
// built-in kind runs, the scheduler leads and fires, GC completes an
// epoch, awcctl's verbs answer, /readyz and `awcctl health` say that
// notifications are off, and no session state is left on the shared
// server connections. Without the setting, the error names it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/support/harness.h"
#include "tests/support/pgbouncer.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What a client of `bouncer` finds on whichever server connection it gets:
// none of the settings a session of the daemon or awcctl set and, unless
// `settings_only` (a client whose pool mode is wrong prepares and LISTENs
// on a shared server connection, which harms no other client), no prepared
// statement or LISTEN either. Asked on several fresh clients, so that every
// server connection of the pool is seen.
void ExpectNoSessionState(const PgBouncer& bouncer, const TestDatabase& db,
                          bool settings_only = false) {
  for (int i = 0; i < 6; ++i) {
    auto conn = db::PgConn::Connect(bouncer.Url(db.name()), "awc-test",
                                    db::PoolMode::kTransaction);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    auto r = (*conn)->Exec(
        "SELECT (SELECT count(*) FROM pg_prepared_statements), "
        "(SELECT count(*) FROM pg_listening_channels()), "
        "current_setting('default_transaction_read_only'), "
        "current_setting('lock_timeout'), "
        "current_setting('statement_timeout'), "
        "current_setting('synchronous_commit'), "
        "current_setting('plan_cache_mode'), "
        "current_setting('jit')",
        {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (!settings_only) {
      EXPECT_EQ(r->GetInt(0, 0), 0) << "prepared statements left";
      EXPECT_EQ(r->GetInt(0, 1), 0) << "a LISTEN left";
    }
    EXPECT_EQ(r->GetString(0, 2), "off");
    EXPECT_EQ(r->GetString(0, 3), "0");
    EXPECT_EQ(r->GetString(0, 4), "0");
    // The queue transaction's own settings (sql::kQueueTransaction).
    EXPECT_EQ(r->GetString(0, 5), "on");
    EXPECT_EQ(r->GetString(0, 6), "auto");
    EXPECT_EQ(r->GetString(0, 7), "on");
  }
}

TEST(DaemonPoolerTest, EverythingWorksThroughATransactionPooler) {
  TestDatabase db;
  PgBouncer bouncer({.pool_mode = "transaction", .pool_size = 2});
  ASSERT_TRUE(bouncer.ok());
  TempDir store;
  Env env = {{"DATABASE_URL", bouncer.Url(db.name())},
             {"AWC_DATABASE_POOL_MODE", "transaction"},
             {"AWC_CAS_URL", "file://" + store.path()}};
  ASSERT_TRUE(InitStore("file://" + store.path()));
  auto migrated = RunAwcctl({"migrate"}, env);
  ASSERT_EQ(migrated.code, 0) << migrated.err << bouncer.Log();
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('acme')");
  int64_t ws = db.Int(
      "INSERT INTO awc.workspaces (tenant_id, retention) VALUES "
      "('acme', '{\"keep_last\": 1}') RETURNING id");
  TempDir v1, v2;
  v1.Write("a.txt", "version one\n");
  v2.Write("a.txt", "version two\n");
  std::vector<std::string> snaps;
  for (const TempDir* dir : {&v1, &v2}) {
    auto imp = RunAwcctl({"import", "--tenant", "acme", "--workspace",
                          std::to_string(ws), dir->path()},
                         env);
    ASSERT_EQ(imp.code, 0) << imp.err;
    snaps.push_back(imp.out.substr(0, imp.out.size() - 1));
  }

  int port = FreePort();
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = env;
  o.env.push_back({"AWC_WORKER_CONCURRENCY", "3"});
  o.env.push_back({"AWC_WORKER_POLL_INTERVAL_MS", "200"});
  o.env.push_back({"AWC_SCHEDULER", "on"});
  o.env.push_back({"AWC_SCHEDULER_LEASE_SECS", "3"});
  o.env.push_back({"AWC_GC_GRACE_SECS", "0"});
  o.env.push_back({"AWC_RETENTION_GRACE_SECS", "0"});
  o.env.push_back({"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)});
  DaemonProcess d(o);
  auto state = [&](const std::string& id) {
    return db.Scalar("SELECT state FROM awc.snapshots WHERE id = $1", {id});
  };
  ASSERT_TRUE(WaitUntil([&] {
    return state(snaps[0]) == "READY" && state(snaps[1]) == "READY";
  })) << d.Stderr();

  // The other kinds, enqueued through the pooler by awcctl, and one of no
  // kind at all, which is dead-lettered.
  db.Exec(
      "UPDATE awc.objects SET created_at = now() - interval '1 hour', "
      "last_seen_at = now() - interval '1 hour'");
  std::vector<std::pair<std::string, std::string>> jobs = {
      {"snapshot_scrub", "{\"snapshot_id\": " + snaps[0] + "}"},
      {"snapshot_retain", "{\"snapshot_id\": " + snaps[0] + "}"},
      {"workspace_expire", "{\"workspace_id\": " + std::to_string(ws) + "}"},
      {"gc_sweep", "{\"tenant_id\": \"acme\"}"}};
  std::string scrub_id;
  for (const auto& [kind, payload] : jobs) {
    auto r = RunAwcctl({"enqueue", kind, payload}, env);
    ASSERT_EQ(r.code, 0) << kind << ": " << r.err;
    if (scrub_id.empty()) scrub_id = r.out.substr(0, r.out.size() - 1);
  }
  db.Exec("INSERT INTO awc.jobs (kind, payload) VALUES ('no_such_kind', '{}')");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db.Int(
                   "SELECT count(DISTINCT kind) FROM awc.jobs WHERE state = "
                   "'COMPLETED' AND kind IN ('snapshot_validate', "
                   "'snapshot_scrub', 'snapshot_retain', 'workspace_expire', "
                   "'gc_sweep')") == 5 &&
               db.Scalar(
                   "SELECT state FROM awc.jobs WHERE kind = "
                   "'no_such_kind'") == "FAILED";
      },
      60))
      << d.Stderr();
  EXPECT_GE(db.Int("SELECT count(*) FROM awc.gc_epochs WHERE state = "
                   "'COMPLETED'"),
            1);

  // The scheduler took the lease and fired its built-in schedules.
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int("SELECT count(*) FROM awc.schedules WHERE runs > 0") > 0 &&
           db.Int(
               "SELECT count(*) FROM awc.leader_leases WHERE expires_at > "
               "now() AND holder LIKE '%-scheduler/%'") == 1;
  })) << d.Stderr();

  // awcctl's verbs through the pooler.
  auto health = RunAwcctl({"health", "--fleet"}, env);
  EXPECT_EQ(health.code, 0) << health.out << health.err;
  EXPECT_TRUE(Contains(health.out, "notifications off")) << health.out;
  EXPECT_TRUE(Contains(health.out, "AWC_DATABASE_POOL_MODE=transaction"));
  auto list = RunAwcctl({"jobs", "list"}, env);
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_TRUE(Contains(list.out, "snapshot_scrub")) << list.out;
  auto show = RunAwcctl({"jobs", "show", scrub_id}, env);
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_TRUE(Contains(show.out, "COMPLETED")) << show.out;
  auto dlq = RunAwcctl({"dlq", "list"}, env);
  EXPECT_EQ(dlq.code, 0) << dlq.err;
  EXPECT_TRUE(Contains(dlq.out, "no_such_kind")) << dlq.out;
  auto stats = RunAwcctl({"stats"}, env);
  EXPECT_EQ(stats.code, 0) << stats.err;
  auto schedules = RunAwcctl({"schedules", "list"}, env);
  EXPECT_EQ(schedules.code, 0) << schedules.err;
  EXPECT_TRUE(Contains(schedules.out, "scrub")) << schedules.out;
  auto status = RunAwcctl({"migrate", "--status"}, env);
  EXPECT_EQ(status.code, 0) << status.err;
  // A schedule made due by awcctl fires without NOTIFY: the leader wakes
  // at least every third of its lease.
  int64_t runs = db.Int("SELECT runs FROM awc.schedules WHERE name = 'gc'");
  auto run_now = RunAwcctl({"schedules", "run", "gc"}, env);
  EXPECT_EQ(run_now.code, 0) << run_now.err;
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int("SELECT runs FROM awc.schedules WHERE name = 'gc'") > runs;
  })) << d.Stderr();

  // /readyz says how new work is found.
  auto [code, body] = HttpGet(port, "/readyz");
  EXPECT_EQ(code, 200) << body;
  EXPECT_TRUE(Contains(body, "ready\nnotifications off")) << body;
  EXPECT_TRUE(Contains(body, "AWC_WORKER_POLL_INTERVAL_MS")) << body;

  ExpectNoSessionState(bouncer, db);
  EXPECT_TRUE(d.EventsWith("database error").empty()) << d.Stderr();
  EXPECT_TRUE(d.EventsWith("database unavailable").empty()) << d.Stderr();
  d.Signal(SIGTERM);
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << d.Stderr();
}

TEST(DaemonPoolerTest, SessionModeBehindATransactionPoolerNamesTheSetting) {
  TestDatabase db;
  db.Migrate();
  PgBouncer bouncer({.pool_mode = "transaction", .pool_size = 1});
  ASSERT_TRUE(bouncer.ok());
  DaemonProcess::Options o = FleetOptions(
      db, 3,
      {{"DATABASE_URL", bouncer.Url(db.name())}, {"AWC_MIGRATE", "check"}});
  DaemonProcess d(o);
  // The workers share one server connection: the second to prepare finds
  // the first one's statements there.
  ASSERT_TRUE(WaitUntil([&] {
    return Contains(d.Stderr(), "set AWC_DATABASE_POOL_MODE=transaction");
  })) << d.Stderr();
  bool explained = false;
  for (const char* msg : {"database unavailable", "database error"}) {
    for (const JsonPtr& e : d.EventsWith(msg)) {
      std::string error = Str(e.get(), "error");
      explained |= Contains(error, "connection pooler in transaction mode") &&
                   (Contains(error, "SQLSTATE 42P05") ||
                    Contains(error, "SQLSTATE 26000"));
    }
  }
  EXPECT_TRUE(explained) << d.Stderr();
  // Its scheduler's lock_timeout stays with its own transactions.
  ExpectNoSessionState(bouncer, db, /*settings_only=*/true);
}

// awcctl left at AWC_DATABASE_POOL_MODE=session behind the transaction
// pooler: its read verbs' read-only mode must not outlive it on the shared
// server connections, where a correctly configured fleet would then fail
// every claim with SQLSTATE 25006.
TEST(DaemonPoolerTest, AMistakenAwcctlLeavesTheFleetWritable) {
  TestDatabase db;
  db.Migrate();
  PgBouncer bouncer({.pool_mode = "transaction", .pool_size = 2});
  ASSERT_TRUE(bouncer.ok());
  Env mistaken = {{"DATABASE_URL", bouncer.Url(db.name())},
                  {"AWC_DATABASE_POOL_MODE", "session"}};
  for (int i = 0; i < 8; ++i) {
    auto list = RunAwcctl({"jobs", "list"}, mistaken);
    ASSERT_EQ(list.code, 0) << list.err;
  }
  ExpectNoSessionState(bouncer, db, /*settings_only=*/true);

  Env right = {{"DATABASE_URL", bouncer.Url(db.name())},
               {"AWC_DATABASE_POOL_MODE", "transaction"}};
  auto pause = RunAwcctl({"kinds", "pause", "snapshot_scrub"}, right);
  EXPECT_EQ(pause.code, 0) << pause.err;
  auto resume = RunAwcctl({"kinds", "resume", "snapshot_scrub"}, right);
  EXPECT_EQ(resume.code, 0) << resume.err;
  DaemonProcess::Options o =
      FleetOptions(db, 2,
                   {{"DATABASE_URL", bouncer.Url(db.name())},
                    {"AWC_DATABASE_POOL_MODE", "transaction"},
                    {"AWC_MIGRATE", "check"},
                    {"AWC_WORKER_POLL_INTERVAL_MS", "100"}});
  DaemonProcess d(o);
  for (int i = 0; i < 20; ++i) {
    db.Exec(
        "INSERT INTO awc.jobs (kind, payload) VALUES ('test_complete', '{}')");
  }
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int("SELECT count(*) FROM awc.jobs WHERE state = 'COMPLETED'") ==
           20;
  })) << d.Stderr();
  EXPECT_TRUE(d.EventsWith("database error").empty()) << d.Stderr();
}

}  // namespace
}  // namespace awc::testing
