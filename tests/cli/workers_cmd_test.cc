// What awcctl shows of a real fleet: workers by host and slot with their
// state and job, stats after a mix of jobs, health --fleet while it runs
// and after it stopped, and a long scrub's progress.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "common/json.h"
#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

JsonPtr MustParse(const std::string& text) {
  Result<JsonPtr> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? std::move(*j) : JsonPtr(json_object());
}

class FleetVisibilityTest : public ::testing::Test {
 protected:
  void SetUp() override { db_.Migrate(); }
  CommandResult Run(std::vector<std::string> args) {
    return RunAwcctl(std::move(args), {{"DATABASE_URL", db_.url()}});
  }
  JsonPtr Json(std::vector<std::string> args) {
    args.push_back("--json");
    CommandResult r = Run(args);
    EXPECT_EQ(r.code, 0) << ::testing::PrintToString(args) << r.err;
    return MustParse(r.out);
  }
  // The row of `kind` in a stats table.
  const json_t* Row(const json_t* table, const char* key,
                    const std::string& value) {
    for (size_t i = 0; i < json_array_size(table); ++i) {
      if (Str(json_array_get(table, i), key) == value) {
        return json_array_get(table, i);
      }
    }
    ADD_FAILURE() << "no row " << value;
    return json_object();
  }

  TestDatabase db_;
};

TEST_F(FleetVisibilityTest, WorkersStatsAndHealthOfARealFleet) {
  EXPECT_EQ(Run({"health", "--fleet"}).code, 1);  // nobody yet
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('acme'), ('other')");
  db_.Exec(
      "INSERT INTO awc.workspaces (tenant_id, state) VALUES ('acme', "
      "'ACTIVE'), ('acme', 'EXPIRED'), ('other', 'ACTIVE')");
  db_.Exec(
      "INSERT INTO awc.snapshots (tenant_id, root_digest, state) VALUES "
      "('acme', 'sha256:' || repeat('a', 64), 'RELEASED')");

  // A short lease: the cancelled sleeper learns it within a second.
  DaemonProcess fleet(FleetOptions(db_, 2, {{"AWC_WORKER_LEASE_SECS", "3"}}));
  ASSERT_TRUE(fleet.WaitForEvent("supervisor running")) << fleet.Stderr();
  for (int i = 0; i < 3; ++i) db_.Enqueue("test_complete", "{}");
  db_.Enqueue("test_fail", "{}");
  db_.Enqueue("no_such_kind", "{}");
  int64_t gc = db_.Enqueue("gc_sweep", R"({"tenant_id": "acme"})");
  int64_t sleeping = db_.Enqueue("test_sleep", R"({"ms": 60000})");
  db_.Enqueue("test_complete", "{}", 5);
  db_.Exec(
      "UPDATE awc.jobs SET run_at = now() + interval '1 hour' WHERE id = "
      "(SELECT max(id) FROM awc.jobs)");
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.jobs WHERE state IN "
               "('COMPLETED', 'FAILED')") == 6;
  })) << fleet.Stderr();
  ASSERT_EQ(db_.JobState(gc), "COMPLETED");
  // The sleeping job shows in its worker's row within a heartbeat or two.
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.workers WHERE state = 'busy' AND "
               "job_id = $1",
               {std::to_string(sleeping)}) == 1;
  })) << fleet.Stderr();

  // workers: both slots of this host, the busy one with its job.
  JsonPtr workers = Json({"workers"});
  const json_t* rows = json_object_get(workers.get(), "workers");
  ASSERT_EQ(json_array_size(rows), 2u) << Run({"workers"}).out;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::set<pid_t> children;
  for (pid_t p : fleet.Children()) children.insert(p);
  for (size_t i = 0; i < 2; ++i) {
    const json_t* w = json_array_get(rows, i);
    EXPECT_EQ(Str(w, "host"), host);
    EXPECT_EQ(Int(w, "slot"), static_cast<int64_t>(i + 1));
    EXPECT_EQ(Str(w, "worker_id"), "t-" + std::to_string(i + 1));
    EXPECT_EQ(children.count(static_cast<pid_t>(Int(w, "pid"))), 1u);
    EXPECT_TRUE(json_is_true(json_object_get(w, "fresh")));
    EXPECT_GE(Num(w, "heartbeat_age_s"), 0);
    if (Str(w, "state") == "busy") {
      EXPECT_EQ(Int(w, "job_id"), sleeping);
      EXPECT_EQ(Str(w, "job_kind"), "test_sleep");
    } else {
      EXPECT_EQ(Str(w, "state"), "idle");
      EXPECT_TRUE(json_is_null(json_object_get(w, "job_id")));
    }
  }
  CommandResult text = Run({"workers"});
  EXPECT_NE(text.out.find("test_sleep"), std::string::npos) << text.out;
  EXPECT_EQ(Run({"health", "--fleet"}).code, 0);

  // stats: jobs by kind and state, dead letters by reason, the rest.
  JsonPtr stats = Json({"stats"});
  const json_t* jobs = json_object_get(stats.get(), "jobs");
  const json_t* complete = Row(jobs, "kind", "test_complete");
  EXPECT_EQ(Int(complete, "completed"), 3);
  EXPECT_EQ(Int(complete, "pending"), 1);
  EXPECT_TRUE(json_is_null(json_object_get(complete, "oldest_pending_s")))
      << "a job not ready yet has not waited";
  EXPECT_EQ(Int(Row(jobs, "kind", "test_sleep"), "running"), 1);
  EXPECT_EQ(Int(Row(jobs, "kind", "test_fail"), "failed"), 1);
  const json_t* dead = json_object_get(stats.get(), "dead_letters");
  EXPECT_EQ(Int(Row(dead, "reason", "handler_failed"), "count"), 1);
  EXPECT_EQ(Int(Row(dead, "reason", "unknown_kind"), "count"), 1);
  EXPECT_EQ(
      Int(Row(json_object_get(stats.get(), "workspaces"), "state", "ACTIVE"),
          "count"),
      2);
  EXPECT_EQ(
      Int(Row(json_object_get(stats.get(), "snapshots"), "state", "RELEASED"),
          "count"),
      1);
  const json_t* epoch =
      Row(json_object_get(stats.get(), "gc_epochs"), "tenant_id", "acme");
  EXPECT_EQ(Str(epoch, "state"), "COMPLETED");
  EXPECT_GE(Num(epoch, "finished_ago_s"), 0);
  CommandResult stats_text = Run({"stats"});
  EXPECT_NE(stats_text.out.find("dead letters by reason\nREASON"),
            std::string::npos)
      << stats_text.out;
  // An epoch's age says what it is: how long ago it finished.
  EXPECT_NE(stats_text.out.find(" FINISHED_AGO"), std::string::npos)
      << stats_text.out;

  // Stopped: the rows say so and the fleet is not ready.
  db_.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
           {std::to_string(sleeping)});
  fleet.Signal(SIGTERM);
  ASSERT_TRUE(fleet.WaitExit().has_value()) << fleet.Stderr();
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.workers WHERE state = "
                    "'stopped'"),
            2);
  EXPECT_EQ(Run({"health", "--fleet"}).code, 1);

  // A ready job waiting shows its age (nobody claims it now), counted from
  // when it could first run and never from before it was inserted.
  db_.Exec(
      "UPDATE awc.jobs SET run_at = now() - interval '1 hour', "
      "created_at = now() - interval '1 hour' WHERE state = 'PENDING'");
  JsonPtr waiting = Json({"stats"});
  EXPECT_GE(
      Num(Row(json_object_get(waiting.get(), "jobs"), "kind", "test_complete"),
          "oldest_pending_s"),
      3600);
}

TEST_F(FleetVisibilityTest, ARestartedSlotReplacesItsRow) {
  DaemonProcess fleet(FleetOptions(db_, 1));
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int("SELECT count(*) FROM awc.workers") == 1;
  })) << fleet.Stderr();
  db_.Enqueue("test_crash", "{}", 1);
  ASSERT_TRUE(fleet.WaitForEvent("worker exited")) << fleet.Stderr();
  // The new process of slot 1 prunes its predecessor's row.
  ASSERT_TRUE(WaitUntil([&] {
    std::vector<pid_t> kids = fleet.Children();
    return kids.size() == 1 &&
           db_.Scalar("SELECT string_agg(pid::text, ',') FROM awc.workers") ==
               std::to_string(kids[0]);
  })) << fleet.Stderr();
}

// A scrub held to the host's read budget runs for seconds: meanwhile its
// worker's process title, `awcctl workers` and the console's overview say
// how far it has got, at what rate and when it will be done.
TEST_F(FleetVisibilityTest, ALongScrubShowsItsProgress) {
  TempDir dir;
  ASSERT_TRUE(InitStore("file://" + dir.path()));
  auto store = store::NewFileStore(dir.path());
  ASSERT_TRUE(store.ok());
  CasFixture cas(db_, **store, "t1");
  std::vector<CasFixture::Entry> entries;
  for (int i = 0; i < 300; ++i) {
    entries.push_back(cas.E("f" + std::to_string(1000 + i),
                            cas.Blob("file " + std::to_string(i))));
  }
  int64_t snap = cas.Snapshot(cas.Manifest(entries));
  DaemonProcess fleet(
      FleetOptions(db_, 1,
                   {{"AWC_CAS_URL", "file://" + dir.path()},
                    {"AWC_WORKER_HEARTBEAT_SECS", "1"},
                    {"AWC_WORKER_HEARTBEAT_TIMEOUT_SECS", "0"},
                    {"AWC_SCRUB_BUDGET_OBJECTS_PER_SEC", "30"}}));
  ASSERT_TRUE(fleet.WaitForEvent("supervisor running")) << fleet.Stderr();
  int64_t v = db_.Enqueue("snapshot_validate",
                          "{\"snapshot_id\": " + std::to_string(snap) + "}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(v) == "COMPLETED"; }));
  int64_t job = db_.Enqueue("snapshot_scrub",
                            "{\"snapshot_id\": " + std::to_string(snap) + "}");
  pid_t worker = fleet.ChildRunning(job);
  ASSERT_GT(worker, 0) << fleet.Stderr();

  // The title: the job, its share, the rate, the ETA.
  std::string title;
  ASSERT_TRUE(WaitUntil([&] {
    std::ifstream in("/proc/" + std::to_string(worker) + "/cmdline");
    std::stringstream b;
    b << in.rdbuf();
    title = b.str();
    return title.find("% ") != std::string::npos &&
           title.find(" eta ") != std::string::npos;
  })) << title;
  EXPECT_NE(title.find("job " + std::to_string(job) + " snapshot_scrub "),
            std::string::npos)
      << title;
  // awcctl workers: the line, and the numbers in --json.
  const json_t* row = nullptr;
  JsonPtr doc;
  ASSERT_TRUE(WaitUntil([&] {
    doc = Json({"workers"});
    const json_t* rows = json_object_get(doc.get(), "workers");
    for (size_t i = 0; i < json_array_size(rows); ++i) {
      const json_t* r = json_array_get(rows, i);
      if (json_is_object(json_object_get(r, "progress"))) row = r;
    }
    return row != nullptr;
  }));
  const json_t* p = json_object_get(row, "progress");
  EXPECT_EQ(json_integer_value(json_object_get(p, "objects_total")), 301);
  EXPECT_GT(json_integer_value(json_object_get(p, "objects")), 0);
  EXPECT_TRUE(json_is_number(json_object_get(p, "eta_secs")));
  EXPECT_NE(Run({"workers"}).out.find("% "), std::string::npos);
  EXPECT_NE(db_.Scalar("SELECT progress->>'line' FROM awc.workers WHERE "
                       "job_id = $1",
                       {std::to_string(job)}),
            "NULL");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(job) == "COMPLETED"; }, 60));
  // Done, the row says so no more.
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.workers WHERE progress IS NOT "
               "NULL") == 0;
  }));
}

}  // namespace
}  // namespace awc::testing
