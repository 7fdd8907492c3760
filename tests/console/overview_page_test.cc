// The console's overview over HTTP, against a real database: how long the
// oldest ready job has waited, as awcctl stats counts it; a backlog longer
// than the counts' cap, shown as a lower bound; what holds the horizon; a
// worker id in use on more than one host.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <regex>

#include "common/json.h"
#include "console/read_model.h"
#include "tests/support/console_fixture.h"

namespace awc::testing {
namespace {

// Each row of `rows` (an array of objects) by its string field `key`.
std::map<std::string, json_t*> ByKey(json_t* rows, const char* key) {
  std::map<std::string, json_t*> out;
  for (size_t i = 0; i < json_array_size(rows); ++i) {
    json_t* row = json_array_get(rows, i);
    out[Str(row, key)] = row;
  }
  return out;
}

class ConsoleOverviewTest : public ::testing::Test {
 protected:
  void SetUp() override { db_.Migrate(); }

  // The queue of /api/overview by kind; empty (and a failure) when it
  // does not answer.
  std::map<std::string, json_t*> Queue(ConsoleProcess& console) {
    HttpReply r = console.Get("/api/overview");
    EXPECT_EQ(r.status, 200) << r.body;
    Result<JsonPtr> doc = ParseJson(r.body);
    EXPECT_TRUE(doc.ok()) << r.body;
    if (!doc.ok()) return {};
    api_ = std::move(*doc);
    return ByKey(json_object_get(api_.get(), "queue"), "kind");
  }

  TestDatabase db_;
  JsonPtr api_;
};

// A job's wait starts when it could first run, never before it was
// inserted: a producer's run_at a month before the insert does not read as
// a month of waiting, on the console as in awcctl stats.
TEST_F(ConsoleOverviewTest, TheOldestReadyJobWaitsAsAwcctlStatsCountsIt) {
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at) VALUES "
      "('test_complete', now() - interval '30 days')");
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at, created_at) VALUES "
      "('test_sleep', now() - interval '2 hours', now() - interval '3 hours')");
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();

  std::map<std::string, json_t*> queue = Queue(console);
  ASSERT_EQ(queue.size(), 2u);
  double month_old_run_at = Num(queue["test_complete"], "oldest_ready_s");
  double waited_two_hours = Num(queue["test_sleep"], "oldest_ready_s");
  EXPECT_GE(month_old_run_at, 0);
  EXPECT_LT(month_old_run_at, 3600);
  EXPECT_GE(waited_two_hours, 2 * 3600);
  EXPECT_LT(waited_two_hours, 3 * 3600);
  EXPECT_EQ(Int(queue["test_complete"], "ready"), 1);

  CommandResult stats =
      RunAwcctl({"stats", "--json"}, {{"DATABASE_URL", db_.url()}});
  ASSERT_EQ(stats.code, 0) << stats.err;
  Result<JsonPtr> doc = ParseJson(stats.out);
  ASSERT_TRUE(doc.ok()) << stats.out;
  std::map<std::string, json_t*> jobs =
      ByKey(json_object_get(doc->get(), "jobs"), "kind");
  EXPECT_LT(Num(jobs["test_complete"], "oldest_pending_s"), 3600);
  EXPECT_GE(Num(jobs["test_sleep"], "oldest_pending_s"), 2 * 3600);
  EXPECT_LT(Num(jobs["test_sleep"], "oldest_pending_s"), 3 * 3600);

  // On the page, the wait in the last column, with the time it started on
  // hover.
  HttpReply page = console.Get("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.body.find("30 d ago"), std::string::npos);
  EXPECT_TRUE(std::regex_search(
      page.body,
      std::regex(
          "<td class=\"n\"><time datetime=\"[0-9-]{10}T[0-9:]{8}Z\" "
          "title=\"[0-9-]{10} [0-9:]{8} UTC\">2 h ago</time></td></tr>")))
      << page.body;
}

// More ready, scheduled and completed jobs than the overview counts: each
// count stops at the cap and says it is a lower bound, in the page and in
// the JSON; below the cap it is exact.
TEST_F(ConsoleOverviewTest, ABacklogIsCountedUpToTheCapAndShownAsALowerBound) {
  const int64_t cap = console::kJobCountCap;
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at) SELECT 'test_complete', "
      "now() - interval '1 minute' FROM generate_series(1, $1)",
      {std::to_string(cap + 5)});
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at) SELECT 'test_complete', "
      "now() + interval '1 hour' FROM generate_series(1, $1)",
      {std::to_string(cap + 5)});
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at) SELECT 'test_sleep', "
      "now() + interval '1 hour' FROM generate_series(1, $1)",
      {std::to_string(cap - 1)});
  // Finished jobs: COMPLETED above and below the cap, each kind with
  // CANCELLED ones among them, which the capped count must not take.
  const char* finished =
      "INSERT INTO awc.jobs (kind, state, finished_at) SELECT $1, "
      "CASE WHEN g % 4 = 0 THEN 'CANCELLED' ELSE 'COMPLETED' END, now() "
      "FROM generate_series(1, $2) g";
  db_.Exec(finished, {"test_complete", std::to_string((cap + 5) * 4 / 3)});
  db_.Exec(finished, {"test_sleep", std::to_string((cap - 1) * 4 / 3)});
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();

  std::map<std::string, json_t*> queue = Queue(console);
  ASSERT_EQ(queue.count("test_complete"), 1u);
  json_t* backlog = queue["test_complete"];
  EXPECT_EQ(Int(backlog, "ready"), cap);
  EXPECT_TRUE(json_is_true(json_object_get(backlog, "ready_capped")));
  EXPECT_EQ(Int(backlog, "scheduled"), cap);
  EXPECT_TRUE(json_is_true(json_object_get(backlog, "scheduled_capped")));
  json_t* below = queue["test_sleep"];
  EXPECT_EQ(Int(below, "scheduled"), cap - 1);
  EXPECT_FALSE(json_is_true(json_object_get(below, "scheduled_capped")));
  EXPECT_EQ(Int(backlog, "completed"), cap);
  EXPECT_TRUE(json_is_true(json_object_get(backlog, "completed_capped")));
  EXPECT_EQ(Int(backlog, "cancelled"), (cap + 5) / 3);
  EXPECT_EQ(Int(below, "completed"), cap - 1);
  EXPECT_FALSE(json_is_true(json_object_get(below, "completed_capped")));
  EXPECT_EQ(Int(below, "cancelled"), (cap - 1) / 3);
  EXPECT_EQ(Int(json_object_get(api_.get(), "count_caps"), "ready"), cap);

  HttpReply page = console.Get("/");
  ASSERT_EQ(page.status, 200);
  std::string at_least =
      "\xE2\x89\xA5 1\xE2\x80\xAF"
      "000</a>";
  std::string pending =
      "<a href=\"/jobs?kind=test_complete&amp;state=PENDING\">";
  EXPECT_NE(page.body.find(pending + at_least + "</td><td class=\"n\">" +
                           pending + at_least),
            std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("Ready, scheduled and completed jobs are counted "
                           "up to 1\xE2\x80\xAF"
                           "000 per kind"),
            std::string::npos);
}

// jobs_estimate is the planner's estimate of awc.jobs: null (not a 0 that
// reads as an empty queue) until the table has been analyzed, then what
// ANALYZE counted. And a path with a NUL in it is a bad request, not the
// page its first part names.
TEST_F(ConsoleOverviewTest, TheJobsEstimateIsNullUntilTheFirstAnalyze) {
  for (int i = 0; i < 5; ++i) db_.Enqueue("test_complete", "{}");
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  Queue(console);
  ASSERT_TRUE(api_);
  EXPECT_TRUE(json_is_null(json_object_get(api_.get(), "jobs_estimate")))
      << console.Get("/api/overview").body;
  db_.Exec("ANALYZE awc.jobs");
  Queue(console);
  ASSERT_TRUE(api_);
  EXPECT_EQ(json_integer_value(json_object_get(api_.get(), "jobs_estimate")),
            5);
  EXPECT_EQ(console.Get("/jobs/1%00zzz").status, 400);
  EXPECT_EQ(console.Get("/dead%00xyz").status, 400);
  EXPECT_EQ(console.Get("/jobs/1").status, 200);
}

// A session idle in transaction holds the horizon back: the overview
// names it (pid, application, state), /api/overview gives it in full, and
// once it ends neither does.
TEST_F(ConsoleOverviewTest, ASessionHoldingTheHorizonIsNamed) {
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  EXPECT_EQ(console.Get("/").body.find("Horizon held back"), std::string::npos);
  std::string pid;
  auto pin = db_.HoldHorizon("nightly-report", &pid);
  usleep(1'200'000);  // held for a second: shown
  HttpReply page = console.Get("/");
  EXPECT_NE(page.body.find("Horizon held back"), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("By session pid " + pid + " ("), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("[nightly-report, "), std::string::npos);
  Queue(console);
  ASSERT_TRUE(api_);
  json_t* holder =
      json_object_get(json_object_get(api_.get(), "horizon"), "holder");
  EXPECT_EQ(Str(holder, "kind"), "session");
  EXPECT_GE(json_number_value(json_object_get(holder, "held_seconds")), 1.0);
  pin->Rollback();
  EXPECT_EQ(console.Get("/").body.find("Horizon held back"), std::string::npos);
  Queue(console);
  EXPECT_TRUE(json_is_null(
      json_object_get(json_object_get(api_.get(), "horizon"), "holder")));
}

// Heartbeat rows of one worker id on two hosts, both fresh: the overview
// warns of the clash (docs/observability.md, "Worker ids on more than one
// host"), /api/overview lists it, and a stopped or stale row on a third
// host does not count.
TEST_F(ConsoleOverviewTest, AWorkerIdOnTwoHostsIsShown) {
  ConsoleProcess console(db_);
  ASSERT_TRUE(console.WaitListening()) << console.process().Stderr();
  auto beat = [&](const std::string& host, int pid, const std::string& id,
                  int slot, const std::string& state, int age) {
    db_.Exec(
        "INSERT INTO awc.workers (host, pid, worker_id, slot, started_at, "
        "heartbeat_at, state) VALUES ($1, $2, $3, $4, now(), "
        "clock_timestamp() - make_interval(secs => $5), $6)",
        {host, std::to_string(pid), id, std::to_string(slot),
         std::to_string(age), state});
  };
  beat("host-a", 11, "shared-1", 1, "idle", 0);
  beat("host-a", 12, "shared-2", 2, "busy", 0);
  beat("host-c", 31, "alone-1", 1, "idle", 0);
  EXPECT_EQ(console.Get("/").body.find("more than one host"),
            std::string::npos);
  beat("host-b", 21, "shared-1", 1, "idle", 1);
  beat("host-d", 41, "shared-1", 1, "stopped", 0);
  beat("host-e", 51, "shared-1", 1, "idle", 3600);

  HttpReply page = console.Get("/");
  EXPECT_NE(page.body.find("Worker ids on more than one host"),
            std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("<code>shared</code>"), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("host-a, host-b"), std::string::npos) << page.body;
  EXPECT_EQ(page.body.find("host-d, "), std::string::npos) << page.body;
  Queue(console);
  ASSERT_TRUE(api_);
  json_t* clashes = json_object_get(api_.get(), "id_clashes");
  ASSERT_EQ(json_array_size(clashes), 1u);
  json_t* clash = json_array_get(clashes, 0);
  EXPECT_EQ(Str(clash, "worker_id"), "shared");
  json_t* hosts = json_object_get(clash, "hosts");
  ASSERT_EQ(json_array_size(hosts), 2u);
  EXPECT_STREQ(json_string_value(json_array_get(hosts, 0)), "host-a");
  EXPECT_STREQ(json_string_value(json_array_get(hosts, 1)), "host-b");
}

}  // namespace
}  // namespace awc::testing
