// /readyz follows the database (db/probe.h), also while every worker is
// busy and none has noticed it is gone: the daemon reaches PostgreSQL
// through a proxy the test cuts; and it follows the schema's version.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>

#include "tests/support/harness.h"
#include "tests/support/tcp_proxy.h"

namespace awc::testing {
namespace {

std::string EnvOr(const char* name, const char* fallback) {
  const char* v = getenv(name);
  return v != nullptr ? v : fallback;
}

TEST(ReadinessTest, NotReadyDuringADatabaseOutageThatNoWorkerHasSeen) {
  TestDatabase db;
  db.Migrate();
  TcpProxy proxy(EnvOr("PGHOST", "localhost"), EnvOr("PGPORT", "5432"));
  std::string url = "postgresql://" + EnvOr("PGUSER", "postgres") + ":" +
                    EnvOr("PGPASSWORD", "") +
                    "@127.0.0.1:" + std::to_string(proxy.port()) + "/" +
                    db.name();
  int port = FreePort();
  DaemonProcess daemon(FleetOptions(
      db, 1,
      {{"DATABASE_URL", url},
       {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}}));
  ASSERT_TRUE(WaitUntil([&] { return HttpGet(port, "/readyz").first == 200; }))
      << daemon.Stderr();
  // The only worker is busy for minutes and talks to no database meanwhile
  // (a lease renewal is due after 100 s).
  int64_t job = db.Enqueue("test_sleep", R"({"ms": 600000})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(job) == "RUNNING"; }));

  proxy.Cut();
  std::pair<int, std::string> ready;
  EXPECT_TRUE(WaitUntil([&] {
    ready = HttpGet(port, "/readyz");
    return ready.first == 503;
  })) << "still ready while the database is unreachable";
  EXPECT_NE(ready.second.find("database"), std::string::npos) << ready.second;
  EXPECT_EQ(HttpGet(port, "/healthz").first, 200);

  proxy.Restore();
  EXPECT_TRUE(WaitUntil([&] { return HttpGet(port, "/readyz").first == 200; }))
      << HttpGet(port, "/readyz").second;
  daemon.Signal(SIGQUIT);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

// /readyz checks that the database is fit for this binary, not only at
// startup: a schema another host moved on (or back) makes the master not
// ready until it matches again.
TEST(ReadinessTest, NotReadyWhileTheSchemaIsNotThisBinarysVersion) {
  TestDatabase db;
  db.Migrate();
  int port = FreePort();
  DaemonProcess daemon(FleetOptions(
      db, 1, {{"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}}));
  ASSERT_TRUE(WaitUntil([&] { return HttpGet(port, "/readyz").first == 200; }))
      << daemon.Stderr();
  int64_t latest = db.Int("SELECT max(version) FROM awc.schema_migrations");

  // A newer release migrated the database.
  db.Exec(
      "INSERT INTO awc.schema_migrations (version, name, checksum) "
      "VALUES (9999, '9999_future', 'x')");
  std::pair<int, std::string> ready;
  EXPECT_TRUE(WaitUntil([&] {
    ready = HttpGet(port, "/readyz");
    return ready.first == 503;
  })) << "still ready on a newer schema";
  EXPECT_NE(ready.second.find("database schema is at version 9999, newer "
                              "than this binary (" +
                              std::to_string(latest) +
                              ") and not compatible with it"),
            std::string::npos)
      << ready.second;
  EXPECT_EQ(HttpGet(port, "/healthz").first, 200);

  // The same migration, compatible with this binary (a later release's, on
  // a fleet upgraded host by host): ready again.
  db.Exec(
      "UPDATE awc.schema_migrations SET compatible_from = $1 WHERE "
      "version = 9999",
      {std::to_string(latest)});
  EXPECT_TRUE(WaitUntil([&] { return HttpGet(port, "/readyz").first == 200; }))
      << HttpGet(port, "/readyz").second;

  // Back to this binary's version: ready again.
  db.Exec("DELETE FROM awc.schema_migrations WHERE version = 9999");
  EXPECT_TRUE(WaitUntil([&] { return HttpGet(port, "/readyz").first == 200; }))
      << HttpGet(port, "/readyz").second;
  EXPECT_NE(daemon.Stderr().find("database not fit for use"),
            std::string::npos);
  daemon.Signal(SIGQUIT);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

}  // namespace
}  // namespace awc::testing
