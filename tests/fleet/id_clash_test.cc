// Hosts apart (docs/observability.md, "Worker ids on more than one
// host"): two fleets on one database, each on a host of its own name (the
// test daemon's AWC_TEST_HOST_NAME). Left at its default, the worker id
// carries the host's name, so their workers differ; set to one id on
// both, the clash is reported once as a warning, by /readyz (still ready)
// and by awcctl health --fleet, until one of them stops.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/json.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

constexpr const char* kClashEvent = "worker id in use on more than one host";

// A fleet of two workers on host `host`, with a listener on `port`;
// without `id` the worker id is left at its default.
DaemonProcess::Options OnHost(const TestDatabase& db, const std::string& host,
                              int port, const std::string& id = "") {
  DaemonProcess::Options o = FleetOptions(
      db, 2,
      {{"AWC_TEST_HOST_NAME", host},
       {"AWC_WORKER_HEARTBEAT_SECS", "1"},
       {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}});
  auto it = std::find_if(o.env.begin(), o.env.end(), [](const auto& e) {
    return e.first == "AWC_WORKER_ID";
  });
  if (id.empty()) {
    o.env.erase(it);
  } else {
    it->second = id;
  }
  return o;
}

std::set<std::string> Column(TestDatabase& db, const std::string& sql) {
  std::set<std::string> out;
  auto conn = db.Connect();
  Result<db::PgResult> r = conn->Exec(sql);
  EXPECT_TRUE(r.ok()) << r.status().message();
  for (int i = 0; r.ok() && i < r->rows(); ++i) out.insert(r->GetString(i, 0));
  return out;
}

TEST(IdClashTest, DefaultWorkerIdsCarryTheHostsName) {
  TestDatabase db;
  db.Migrate();
  int port_a = FreePort();
  int port_b = FreePort();
  DaemonProcess a(OnHost(db, "host-a.example.com", port_a));
  DaemonProcess b(OnHost(db, "host-b", port_b));
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int("SELECT count(*) FROM awc.workers WHERE state = 'idle'") == 4;
  })) << a.Stderr()
      << b.Stderr();
  EXPECT_EQ(Column(db, "SELECT host || ' ' || worker_id FROM awc.workers"),
            (std::set<std::string>{"host-a.example.com awc-worker.host-a-1",
                                   "host-a.example.com awc-worker.host-a-2",
                                   "host-b awc-worker.host-b-1",
                                   "host-b awc-worker.host-b-2"}));
  // The database sessions are named after them too.
  EXPECT_TRUE(WaitUntil([&] {
    return Column(db,
                  "SELECT application_name FROM pg_stat_activity "
                  "WHERE datname = current_database() "
                  "AND application_name LIKE 'awc-worker.host-a%'") ==
           std::set<std::string>{"awc-worker.host-a-1", "awc-worker.host-a-2",
                                 "awc-worker.host-a-master"};
  })) << a.Stderr();
  // A job runs; nothing clashes.
  int64_t job = db.Enqueue("test_complete", "{}");
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(job) == "COMPLETED"; }));
  sleep(3);
  std::pair<int, std::string> ready = HttpGet(port_a, "/readyz");
  EXPECT_EQ(ready.first, 200) << ready.second;
  EXPECT_EQ(ready.second.find("worker id"), std::string::npos) << ready.second;
  EXPECT_TRUE(a.EventsWith(kClashEvent).empty()) << a.Stderr();
  EXPECT_TRUE(b.EventsWith(kClashEvent).empty()) << b.Stderr();
  a.Signal(SIGTERM);
  b.Signal(SIGTERM);
  EXPECT_TRUE(a.WaitExit().has_value());
  EXPECT_TRUE(b.WaitExit().has_value());
}

TEST(IdClashTest, OneWorkerIdOnTwoHostsIsReportedOnce) {
  TestDatabase db;
  db.Migrate();
  int port_a = FreePort();
  int port_b = FreePort();
  DaemonProcess a(OnHost(db, "host-a", port_a, "shared"));
  DaemonProcess b(OnHost(db, "host-b", port_b, "shared"));

  // Each host's master warns once, naming the id and both hosts.
  ASSERT_TRUE(a.WaitForEvent(kClashEvent, 30)) << a.Stderr();
  ASSERT_TRUE(b.WaitForEvent(kClashEvent, 30)) << b.Stderr();
  std::vector<JsonPtr> said = a.EventsWith(kClashEvent);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(Str(said[0].get(), "level"), "warn");
  EXPECT_EQ(Str(said[0].get(), "worker_id"), "shared");
  EXPECT_EQ(Str(said[0].get(), "hosts"), "host-a, host-b");

  // A warning, not an outage: ready, with a line that says so.
  std::pair<int, std::string> ready;
  EXPECT_TRUE(WaitUntil([&] {
    ready = HttpGet(port_a, "/readyz");
    return ready.second.find("worker id shared") != std::string::npos;
  })) << ready.second;
  EXPECT_EQ(ready.first, 200) << ready.second;
  EXPECT_NE(ready.second.find("host-a, host-b"), std::string::npos)
      << ready.second;

  CommandResult health =
      RunAwcctl({"health", "--fleet"}, {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(health.code, 0) << health.out << health.err;
  EXPECT_NE(health.out.find("WARN"), std::string::npos) << health.out;
  EXPECT_NE(health.out.find("worker id shared is in use on 2 hosts"),
            std::string::npos)
      << health.out;
  CommandResult json =
      RunAwcctl({"health", "--fleet", "--json"}, {{"DATABASE_URL", db.url()}});
  Result<JsonPtr> doc = ParseJson(json.out);
  ASSERT_TRUE(doc.ok()) << json.out;
  EXPECT_TRUE(json_is_true(json_object_get(doc->get(), "ready")));
  bool warned = false;
  json_t* checks = json_object_get(doc->get(), "checks");
  for (size_t i = 0; i < json_array_size(checks); ++i) {
    json_t* c = json_array_get(checks, i);
    if (Str(c, "name") == "worker ids") {
      warned = json_is_true(json_object_get(c, "warning")) &&
               Str(c, "detail").find("host-a, host-b") != std::string::npos;
    }
  }
  EXPECT_TRUE(warned) << json.out;

  // Not every second: still once a few checks later.
  sleep(5);
  EXPECT_EQ(a.EventsWith(kClashEvent).size(), 1u) << a.Stderr();

  // One of them stops: the clash is over.
  b.Signal(SIGTERM);
  ASSERT_TRUE(b.WaitExit().has_value());
  EXPECT_TRUE(WaitUntil([&] {
    ready = HttpGet(port_a, "/readyz");
    return ready.second.find("worker id") == std::string::npos;
  })) << ready.second;
  EXPECT_EQ(ready.first, 200);
  EXPECT_TRUE(
      a.WaitForEvent("worker id no longer in use on more than one host", 30))
      << a.Stderr();
  a.Signal(SIGTERM);
  EXPECT_TRUE(a.WaitExit().has_value());
}

}  // namespace
}  // namespace awc::testing
