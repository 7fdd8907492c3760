// The daemon on a session that cannot write (awc-worker(8), "READ-ONLY
// SESSIONS"): a database whose new sessions are read-only
// (default_transaction_read_only), a hot standby that is promoted, a
// server made read-only under live sessions, and a multi-host URL that
// names a standby first. Each time the fleet is not ready and says why,
// takes no job and loses none, and works again within seconds once the
// database takes writes, without a restart.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/support/harness.h"
#include "tests/support/pg_standby.h"

namespace awc::testing {
namespace {

// Two workers and the scheduler, with a listener for /readyz.
DaemonProcess::Options Fleet(const TestDatabase& db, const std::string& url,
                             int port) {
  return FleetOptions(
      db, 2,
      {{"DATABASE_URL", url},
       {"AWC_SCHEDULER", "on"},
       {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}});
}

// Waits for /readyz to answer `status` with a body holding `text`; the
// last answer goes to `last`.
bool WaitForReadyz(int port, int status, const std::string& text,
                   std::pair<int, std::string>* last, double timeout_s = 60) {
  return WaitUntil(
      [&] {
        *last = HttpGet(port, "/readyz");
        return last->first == status &&
               last->second.find(text) != std::string::npos;
      },
      timeout_s);
}

// Whether the process `who` of the daemon ("t-1", "t-scheduler") said it
// found its database session read-only.
bool SaysReadOnly(const DaemonProcess& daemon, const std::string& who) {
  for (const JsonPtr& e : daemon.EventsWith("database unavailable")) {
    if (Str(e.get(), "worker") == who &&
        Str(e.get(), "error").find("read-only") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// One statement on a session of its own to `url`, whatever the session's
// default: the test writes while the daemon's sessions are read-only.
std::string OnOwnSession(const std::string& url, const std::string& sql) {
  auto conn = db::PgConn::Connect(url, "awc-test");
  if (!conn.ok()) return "error: " + conn.status().message();
  (void)(*conn)->Exec("SET default_transaction_read_only = off");
  Result<db::PgResult> r = (*conn)->Exec(sql);
  if (!r.ok()) return "error: " + r.status().message();
  return r->rows() > 0 && r->cols() > 0 ? r->GetString(0, 0) : "";
}

TEST(DaemonReadOnlyTest, NewSessionsReadOnlyMeansNotReadyUntilTheyAreNot) {
  TestDatabase db;
  db.Migrate();
  int64_t job = db.Enqueue("test_complete", "{}");
  db.SetReadOnlyForNewSessions(true);
  int port = FreePort();
  DaemonProcess daemon(Fleet(db, db.url(), port));

  std::pair<int, std::string> ready;
  ASSERT_TRUE(WaitForReadyz(port, 503, "read-only", &ready))
      << ready.first << " " << ready.second << daemon.Stderr();
  EXPECT_NE(ready.second.find("default_transaction_read_only"),
            std::string::npos)
      << ready.second;
  EXPECT_TRUE(WaitUntil([&] {
    return SaysReadOnly(daemon, "t-1") && SaysReadOnly(daemon, "t-scheduler");
  })) << daemon.Stderr();
  CommandResult health = RunAwcctl({"health"}, {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(health.code, 1) << health.out << health.err;
  EXPECT_NE(health.out.find("read-only"), std::string::npos) << health.out;
  EXPECT_EQ(db.JobState(job), "PENDING");

  // Writable again: the workers' next attempt finds it, no restart.
  db.SetReadOnlyForNewSessions(false);
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(job) == "COMPLETED"; }, 30))
      << db.JobState(job) << daemon.Stderr();
  EXPECT_TRUE(WaitForReadyz(port, 200, "ready", &ready, 30))
      << ready.first << " " << ready.second;
  EXPECT_TRUE(daemon.WaitForEvent("leadership acquired", 30))
      << daemon.Stderr();
  EXPECT_TRUE(daemon.EventsWith("worker exited").empty()) << daemon.Stderr();
  EXPECT_TRUE(daemon.EventsWith("scheduler exited").empty()) << daemon.Stderr();
  daemon.Signal(SIGTERM);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

TEST(DaemonReadOnlyTest, SessionsEndedIntoAReadOnlySpellComeBackAfterIt) {
  TestDatabase db;
  db.Migrate();
  int port = FreePort();
  DaemonProcess daemon(Fleet(db, db.url(), port));
  std::pair<int, std::string> ready;
  ASSERT_TRUE(WaitForReadyz(port, 200, "ready", &ready))
      << ready.second << daemon.Stderr();
  int64_t before = db.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(before) == "COMPLETED"; }));

  // The spell: new sessions are read-only, and every session of the fleet
  // is ended, so that each reconnects into it.
  db.SetReadOnlyForNewSessions(true);
  db.Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND application_name LIKE 't-%'");
  ASSERT_TRUE(WaitForReadyz(port, 503, "read-only", &ready))
      << ready.first << " " << ready.second << daemon.Stderr();
  int64_t during = db.Enqueue("test_complete", "{}");
  sleep(2);
  EXPECT_EQ(db.JobState(during), "PENDING");

  db.SetReadOnlyForNewSessions(false);
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(during) == "COMPLETED"; }, 30))
      << daemon.Stderr();
  EXPECT_TRUE(WaitForReadyz(port, 200, "ready", &ready, 30))
      << ready.first << " " << ready.second;
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE state <> 'COMPLETED'"),
            0);
  EXPECT_TRUE(daemon.EventsWith("worker exited").empty()) << daemon.Stderr();
  daemon.Signal(SIGTERM);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

TEST(DaemonReadOnlyTest, APromotedStandbyTakesTheJobsWithoutARestart) {
  TestDatabase db;
  db.Migrate();
  int64_t job = db.Enqueue("test_complete", "{}");
  PgStandby standby;
  ASSERT_TRUE(standby.ok());
  std::string url = standby.Url(db.name());
  ASSERT_TRUE(WaitUntil([&] {
    return OnOwnSession(url, "SELECT count(*) FROM awc.jobs") == "1";
  })) << standby.Log();

  // DNS still names the old primary, now a standby.
  int port = FreePort();
  DaemonProcess daemon(Fleet(db, url, port));
  std::pair<int, std::string> ready;
  ASSERT_TRUE(WaitForReadyz(port, 503, "read-only", &ready))
      << ready.first << " " << ready.second << daemon.Stderr();
  EXPECT_NE(ready.second.find("standby"), std::string::npos) << ready.second;
  EXPECT_TRUE(WaitUntil([&] { return SaysReadOnly(daemon, "t-1"); }))
      << daemon.Stderr();
  sleep(2);
  EXPECT_EQ(OnOwnSession(url, "SELECT state FROM awc.jobs"), "PENDING");

  // The failover completes: the standby becomes the primary.
  ASSERT_TRUE(standby.Promote());
  EXPECT_TRUE(WaitUntil(
      [&] {
        return OnOwnSession(url, "SELECT state FROM awc.jobs") == "COMPLETED";
      },
      30))
      << daemon.Stderr();
  EXPECT_TRUE(WaitForReadyz(port, 200, "ready", &ready, 30))
      << ready.first << " " << ready.second;
  EXPECT_EQ(db.JobState(job), "PENDING") << "the old primary was written to";

  // Then the server is made read-only under the live sessions (ALTER
  // SYSTEM and a reload, as an operator fencing a primary does): their
  // next write fails with SQLSTATE 25006, and each session is dropped and
  // made again rather than kept.
  ASSERT_EQ(
      OnOwnSession(url, "ALTER SYSTEM SET default_transaction_read_only = on"),
      "");
  ASSERT_EQ(OnOwnSession(url, "SELECT pg_reload_conf()"), "t");
  std::string spell_job = OnOwnSession(
      url,
      "INSERT INTO awc.jobs (kind, payload) VALUES ('test_complete', '{}') "
      "RETURNING id");
  ASSERT_TRUE(WaitForReadyz(port, 503, "read-only", &ready))
      << ready.first << " " << ready.second << daemon.Stderr();
  EXPECT_EQ(
      OnOwnSession(url, "SELECT state FROM awc.jobs WHERE id = " + spell_job),
      "PENDING");
  ASSERT_EQ(
      OnOwnSession(url, "ALTER SYSTEM RESET default_transaction_read_only"),
      "");
  ASSERT_EQ(OnOwnSession(url, "SELECT pg_reload_conf()"), "t");
  EXPECT_TRUE(WaitUntil(
      [&] {
        return OnOwnSession(url, "SELECT state FROM awc.jobs WHERE id = " +
                                     spell_job) == "COMPLETED";
      },
      30))
      << daemon.Stderr();
  EXPECT_TRUE(WaitForReadyz(port, 200, "ready", &ready, 30))
      << ready.first << " " << ready.second;
  EXPECT_TRUE(daemon.EventsWith("worker exited").empty()) << daemon.Stderr();
  daemon.Signal(SIGTERM);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

TEST(DaemonReadOnlyTest, AMultiHostUrlFindsTheServerThatTakesWrites) {
  TestDatabase db;
  db.Migrate();
  PgStandby standby;
  ASSERT_TRUE(standby.ok());
  // The standby first, the primary second, and no target_session_attrs:
  // libpq alone would stop at the first server that accepts.
  std::string url = MultiHostUrl(db.name(), {standby.port(), ClusterPort()});
  int port = FreePort();
  DaemonProcess daemon(Fleet(db, url, port));
  int64_t job = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(job) == "COMPLETED"; }, 30))
      << daemon.Stderr();
  std::pair<int, std::string> ready;
  EXPECT_TRUE(WaitForReadyz(port, 200, "ready", &ready, 30))
      << ready.first << " " << ready.second;
  CommandResult health = RunAwcctl({"health"}, {{"DATABASE_URL", url}});
  EXPECT_EQ(health.code, 0) << health.out << health.err;
  daemon.Signal(SIGTERM);
  EXPECT_TRUE(daemon.WaitExit().has_value());
}

}  // namespace
}  // namespace awc::testing
