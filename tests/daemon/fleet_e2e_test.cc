// The shipped daemon end to end with its real handlers over a file://
// store: import, validate, scrub, retain, expire and gc as jobs, with the
// events and /metrics that come out of it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cas/manifest.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

TEST(FleetE2eTest, ImportValidateScrubRetainExpireAndCollect) {
  TestDatabase db;
  TempDir store;
  std::vector<std::pair<std::string, std::string>> env = {
      {"DATABASE_URL", db.url()}, {"AWC_CAS_URL", "file://" + store.path()}};
  ASSERT_TRUE(InitStore("file://" + store.path()));
  ASSERT_EQ(RunAwcctl({"migrate"}, env).code, 0);
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('acme')");
  int64_t ws = db.Int(
      "INSERT INTO awc.workspaces (tenant_id, retention) VALUES "
      "('acme', '{\"keep_last\": 1}') RETURNING id");
  TempDir v1, v2;
  v1.Write("a.txt", "version one\n");
  v1.Write("lib/b.txt", "shared library\n");
  v2.Write("a.txt", "version two\n");
  v2.Write("lib/b.txt", "shared library\n");
  auto imp1 = RunAwcctl({"import", "--tenant", "acme", "--workspace",
                         std::to_string(ws), v1.path()},
                        env);
  ASSERT_EQ(imp1.code, 0) << imp1.err;
  auto imp2 = RunAwcctl({"import", "--tenant", "acme", "--workspace",
                         std::to_string(ws), v2.path()},
                        env);
  ASSERT_EQ(imp2.code, 0) << imp2.err;
  std::string s1 = imp1.out.substr(0, imp1.out.size() - 1);
  std::string s2 = imp2.out.substr(0, imp2.out.size() - 1);
  db.Exec(
      "UPDATE awc.snapshots SET created_at = now() - interval '1 hour' "
      "WHERE id = $1",
      {s1});

  int port = FreePort();
  DaemonProcess::Options o;
  o.binary = ShippedDaemonPath();
  o.env = env;
  o.env.push_back({"AWC_WORKER_CONCURRENCY", "3"});
  o.env.push_back({"AWC_WORKER_POLL_INTERVAL_MS", "200"});
  o.env.push_back({"AWC_GC_GRACE_SECS", "0"});
  o.env.push_back({"AWC_RETENTION_GRACE_SECS", "0"});
  o.env.push_back({"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)});
  // The jobs are enqueued by hand here; the scheduler's planners would add
  // their own (tests/scheduler_*_test.cc).
  o.env.push_back({"AWC_SCHEDULER", "off"});
  DaemonProcess d(o);
  auto state = [&](const std::string& id) {
    return db.Scalar("SELECT state FROM awc.snapshots WHERE id = $1", {id});
  };
  ASSERT_TRUE(WaitUntil([&] {
    return state(s1) == "READY" && state(s2) == "READY";
  })) << d.Stderr();

  // Bit rot in v2's a.txt: the scrub degrades v2 and pins its closure.
  std::string rotten = cas::DigestOf("version two\n").substr(7);
  std::string rotten_path =
      store.path() + "/acme/sha256/" + rotten.substr(0, 2) + "/" + rotten;
  ASSERT_EQ(system(("printf 'version tw0\\n' > '" + rotten_path + "'").c_str()),
            0);
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('snapshot_scrub', "
      "jsonb_build_object('snapshot_id', $1::bigint)), ('snapshot_scrub', "
      "jsonb_build_object('snapshot_id', $2::bigint))",
      {s1, s2});
  ASSERT_TRUE(WaitUntil([&] { return state(s2) == "DEGRADED"; })) << d.Stderr();
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.audit_events WHERE event = "
               "'snapshot.scrub'") == 2;
  }));
  EXPECT_EQ(state(s1), "READY");

  // Retention keeps the newest READY (s1 is the only READY one left, so it
  // stays); v2 is DEGRADED and kept.
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('snapshot_retain', "
      "jsonb_build_object('snapshot_id', $1::bigint)), ('snapshot_retain', "
      "jsonb_build_object('snapshot_id', $2::bigint))",
      {s1, s2});
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.jobs WHERE kind = "
               "'snapshot_retain' AND state = 'COMPLETED'") == 2;
  }));
  EXPECT_EQ(state(s1), "READY");
  EXPECT_EQ(state(s2), "DEGRADED");

  // Expire the workspace: EXPIRING, then (grace 0) EXPIRED, releasing s1.
  db.Exec("UPDATE awc.workspaces SET expires_at = now() - interval '1 minute'");
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('workspace_expire', "
      "jsonb_build_object('workspace_id', $1::bigint))",
      {std::to_string(ws)});
  ASSERT_TRUE(WaitUntil([&] {
    return db.Scalar("SELECT state FROM awc.workspaces") == "EXPIRING";
  }));
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('workspace_expire', "
      "jsonb_build_object('workspace_id', $1::bigint))",
      {std::to_string(ws)});
  ASSERT_TRUE(WaitUntil([&] { return state(s1) == "RELEASED"; })) << d.Stderr();

  // GC: v1's own objects go; v2's stay, pinned by the degraded scrub.
  db.Exec(
      "UPDATE awc.objects SET created_at = now() - interval '1 hour', "
      "last_seen_at = now() - interval '1 hour'");
  db.Exec(
      "INSERT INTO awc.jobs (kind, payload) VALUES ('gc_sweep', "
      "'{\"tenant_id\": \"acme\"}')");
  ASSERT_TRUE(WaitUntil([&] {
    return db.Scalar("SELECT state FROM awc.gc_epochs") == "COMPLETED";
  })) << d.Stderr();
  // The epoch commits inside the handler; the job is recorded after it.
  ASSERT_TRUE(WaitUntil([&] {
    for (auto& e : d.EventsWith("job completed")) {
      if (Str(e.get(), "kind") == "gc_sweep") return true;
    }
    return false;
  })) << d.Stderr();
  std::string v1_only = cas::DigestOf("version one\n").substr(7);
  EXPECT_NE(access((store.path() + "/acme/sha256/" + v1_only.substr(0, 2) +
                    "/" + v1_only)
                       .c_str(),
                   F_OK),
            0);
  EXPECT_EQ(access(rotten_path.c_str(), F_OK), 0);
  EXPECT_GT(db.Int("SELECT deleted_count FROM awc.gc_epochs"), 0);

  // Events and metrics of what happened.
  for (const char* kind : {"snapshot_validate", "snapshot_scrub",
                           "snapshot_retain", "workspace_expire", "gc_sweep"}) {
    bool seen = false;
    for (auto& e : d.EventsWith("job completed")) {
      seen |= Str(e.get(), "kind") == kind;
    }
    EXPECT_TRUE(seen) << kind;
  }
  auto [status, metrics] = HttpGet(port, "/metrics");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(JobsTotal(metrics, "snapshot_validate", "completed"), 2);
  EXPECT_EQ(JobsTotal(metrics, "snapshot_scrub", "completed"), 2);
  EXPECT_EQ(JobsTotal(metrics, "gc_sweep", "completed"), 1);
  d.Signal(SIGTERM);
  auto st = d.WaitExit();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
}

}  // namespace
}  // namespace awc::testing
