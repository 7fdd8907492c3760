// What operators set per kind, against the real database, awcctl and
// real daemons. Pausing a kind (docs/queue.md, "Pausing a kind"): two
// "hosts" on one database leave a paused kind's jobs PENDING while they
// run every other kind, a job running when the pause came finishes, and a
// resume drains the kind, waking idle workers at once. A kind's priority
// ("Priorities"): awcctl kinds priority sets it for new jobs and moves the
// PENDING jobs that had the old one, and kinds list shows it.
#include "queue/kind_settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "queue/queue_sql.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

CommandResult Kinds(const TestDatabase& db, std::vector<std::string> args) {
  args.insert(args.begin(), {"-d", db.url(), "kinds"});
  return RunAwcctl(std::move(args), {});
}

int64_t CountOf(TestDatabase& db, const std::string& kind,
                const std::string& state) {
  return db.Int("SELECT count(*) FROM awc.jobs WHERE kind = $1 AND state = $2",
                {kind, state});
}

TEST(PausedKindsTest, TwoHostsClaimNoJobOfAPausedKindUntilItIsResumed) {
  TestDatabase db;
  db.Migrate();
  DaemonProcess host_a(FleetOptions(db, 2, {{"AWC_WORKER_ID", "host-a"}}));
  DaemonProcess host_b(FleetOptions(db, 2, {{"AWC_WORKER_ID", "host-b"}}));
  ASSERT_TRUE(host_a.WaitForEvent("supervisor running")) << host_a.Stderr();
  ASSERT_TRUE(host_b.WaitForEvent("supervisor running")) << host_b.Stderr();

  // A job of the kind is running when the pause comes.
  int64_t running = db.Enqueue("test_sleep", R"({"ms": 1500})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(running) == "RUNNING"; }))
      << host_a.Stderr() << host_b.Stderr();
  CommandResult paused =
      Kinds(db, {"pause", "test_sleep", "--reason", "poison payload"});
  ASSERT_EQ(paused.code, 0) << paused.err;
  EXPECT_TRUE(paused.out.starts_with("kind test_sleep paused at "))
      << paused.out;
  EXPECT_NE(paused.out.find("(poison payload)"), std::string::npos)
      << paused.out;

  std::vector<int64_t> held, others;
  for (int i = 0; i < 6; ++i) {
    held.push_back(db.Enqueue("test_sleep", R"({"ms": 1})"));
    others.push_back(db.Enqueue("test_complete", "{}"));
  }
  // Every other kind runs, on both hosts' workers; the running job of
  // the paused kind finishes as it would have.
  ASSERT_TRUE(WaitUntil([&] {
    return CountOf(db, "test_complete", "COMPLETED") == 6 &&
           db.JobState(running) == "COMPLETED";
  })) << host_a.Stderr()
      << host_b.Stderr();
  // Many poll intervals (200 ms) later, every worker idle and polling,
  // nothing of the paused kind was claimed, on either host.
  usleep(2000 * 1000);
  EXPECT_EQ(CountOf(db, "test_sleep", "PENDING"), 6);
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.jobs WHERE kind = 'test_sleep' "
                   "AND attempts > 0 AND id <> $1",
                   {std::to_string(running)}),
            0);
  CommandResult listed = Kinds(db, {"list", "--json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("\"reason\": \"poison payload\""),
            std::string::npos)
      << listed.out;

  // A job of another kind enqueued after the pause runs too: the workers were
  // claiming all along.
  int64_t late = db.Enqueue("test_complete", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(late) == "COMPLETED"; }));
  EXPECT_EQ(CountOf(db, "test_sleep", "PENDING"), 6);

  CommandResult resumed = Kinds(db, {"resume", "test_sleep"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, "kind test_sleep resumed\n");
  ASSERT_TRUE(WaitUntil([&] {
    return CountOf(db, "test_sleep", "COMPLETED") == 7;
  })) << host_a.Stderr()
      << host_b.Stderr();
}

// The resume notifies awc_jobs: idle workers whose poll is a minute away
// claim the kind's backlog at once.
TEST(PausedKindsTest, AResumeWakesIdleWorkers) {
  TestDatabase db;
  db.Migrate();
  DaemonProcess fleet(
      FleetOptions(db, 2, {{"AWC_WORKER_POLL_INTERVAL_MS", "600000"}}));
  ASSERT_TRUE(fleet.WaitForEvent("supervisor running")) << fleet.Stderr();
  ASSERT_EQ(Kinds(db, {"pause", "test_complete", "--force"}).code, 0);
  int64_t id = db.Enqueue("test_complete", "{}");
  // The insert's notification woke the workers, which found nothing to
  // claim: a job of another kind, enqueued after, runs first.
  int64_t other = db.Enqueue("test_sleep", R"({"ms": 1})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(other) == "COMPLETED"; }))
      << fleet.Stderr();
  EXPECT_EQ(db.JobState(id), "PENDING");
  ASSERT_EQ(Kinds(db, {"resume", "test_complete"}).code, 0);
  EXPECT_TRUE(WaitUntil([&] { return db.JobState(id) == "COMPLETED"; }, 60))
      << fleet.Stderr();
}

class PausedKindsClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.Migrate();
    conn_ = db_.Connect();
  }
  // The id a claim from the start (a full pass) takes, or "" when it takes
  // none.
  std::string Claim() {
    auto r =
        conn_->Exec(queue::sql::kClaim, {"w-1", "300", "{}", "{}", excluded_});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() && r->rows() == 1 ? r->GetString(0, 0) : "";
  }
  std::string Insert(const std::string& kind, const std::string& age) {
    return db_.Scalar(
        "INSERT INTO awc.jobs (kind, run_at) VALUES ($1, now() - $2::interval) "
        "RETURNING id",
        {kind, age});
  }

  std::string excluded_ = "{}";  // the claim's kinds left alone ($5)
  TestDatabase db_;
  std::unique_ptr<db::PgConn> conn_;
};

// With a kind paused the claim still takes the oldest ready job by run_at
// of the others (all of one priority here), never one of the paused kind
// nor one not ready yet.
TEST_F(PausedKindsClaimTest, TheOldestReadyJobOfTheOtherKindsInRunAtOrder) {
  std::string p1 = Insert("p", "3 hours");
  std::string y1 = Insert("y", "2 hours");
  std::string x1 = Insert("x", "1 hour");
  std::string y2 = Insert("y", "30 minutes");
  std::string soon = Insert("x", "-1 hour");  // ready in an hour
  ASSERT_TRUE(queue::PauseKind(*conn_, "p", "", "").ok());
  EXPECT_EQ(Claim(), y1);
  EXPECT_EQ(Claim(), x1);
  EXPECT_EQ(Claim(), y2);
  EXPECT_EQ(Claim(), "");
  EXPECT_EQ(db_.JobState(std::stoll(p1)), "PENDING");
  EXPECT_EQ(db_.JobState(std::stoll(soon)), "PENDING");
  Result<queue::KindChange> resumed = queue::ResumeKind(*conn_, "p");
  ASSERT_TRUE(resumed.ok() && resumed->changed);
  EXPECT_EQ(Claim(), p1);
}

// Kinds a claim leaves alone (a worker with no background place) are left
// like paused ones, by that claim only; paused kinds stay paused too. Of
// the others, the most urgent first (validations, priority 2).
TEST_F(PausedKindsClaimTest, KindsLeftAloneAreSkippedByThatClaimOnly) {
  std::string scrub = Insert("snapshot_scrub", "3 hours");
  std::string p1 = Insert("p", "2 hours");
  std::string v1 = Insert("snapshot_validate", "1 hour");
  std::string v2 = Insert("snapshot_validate", "30 minutes");
  excluded_ = "{snapshot_scrub,gc_sweep}";
  EXPECT_EQ(Claim(), v1);
  ASSERT_TRUE(queue::PauseKind(*conn_, "snapshot_validate", "", "").ok());
  EXPECT_EQ(Claim(), p1);
  EXPECT_EQ(Claim(), "");
  Result<queue::KindChange> resumed =
      queue::ResumeKind(*conn_, "snapshot_validate");
  ASSERT_TRUE(resumed.ok() && resumed->changed);
  EXPECT_EQ(Claim(), v2);
  excluded_ = "{}";
  EXPECT_EQ(Claim(), scrub);
}

// The claim's cost does not grow with a paused kind's backlog ahead of the
// other work: what it reads is counted in buffers, not timed. Walking
// jobs_priority_claim_idx past 100000 paused jobs of the same priority
// reads over 1500 pages.
TEST_F(PausedKindsClaimTest, APausedBacklogAheadIsNotWalked) {
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at) SELECT 'poison', now() - "
      "interval '1 day' + i * interval '1 ms' FROM generate_series(1, 100000) "
      "i");
  std::string other = Insert("other", "1 minute");
  db_.Exec("VACUUM ANALYZE awc.jobs");
  ASSERT_TRUE(queue::PauseKind(*conn_, "poison", "", "").ok());
  ASSERT_TRUE(conn_->Exec("SET plan_cache_mode = force_generic_plan").ok());
  ASSERT_TRUE(conn_
                  ->Exec(std::string("PREPARE c(text, float8, bigint[], "
                                     "bigint[], text[]) AS ") +
                         queue::sql::kClaim)
                  .ok());
  ASSERT_TRUE(conn_->Exec("BEGIN").ok());
  auto r = conn_->Exec(
      "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE c('w-1', 300, '{}', "
      "'{}', '{}')");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string plan = r->GetString(0, 0);
  ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
  EXPECT_TRUE(PlanUsesIndex(plan, "jobs_pending_priority_kind_idx")) << plan;
  auto hits = conn_->Exec(
      "SELECT ($1::json -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::int + "
      "($1::json -> 0 -> 'Plan' ->> 'Shared Read Blocks')::int",
      {plan});
  ASSERT_TRUE(hits.ok()) << hits.status().message();
  EXPECT_LT(hits->GetInt(0, 0), 100) << plan;
  EXPECT_EQ(Claim(), other);
}

TEST(KindPriorityTest, ASetPriorityMovesTheJobsThatHadTheOldOne) {
  TestDatabase db;
  db.Migrate();
  int64_t by_default = db.Enqueue("snapshot_scrub", R"({"snapshot_id": 1})");
  int64_t own = db.Int(
      "INSERT INTO awc.jobs (kind, payload, priority) VALUES "
      "('snapshot_scrub', '{\"snapshot_id\": 2}', 8) RETURNING id");
  auto priority_of = [&](int64_t id) {
    return db.Int("SELECT priority FROM awc.jobs WHERE id = $1",
                  {std::to_string(id)});
  };
  ASSERT_EQ(priority_of(by_default), 7);
  CommandResult set = Kinds(db, {"priority", "snapshot_scrub", "5"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(set.out, "kind snapshot_scrub priority 5 (was 7; 1 pending job "
                     "moved)\n");
  EXPECT_EQ(priority_of(by_default), 5);
  EXPECT_EQ(priority_of(own), 8);  // its producer's, kept
  EXPECT_EQ(priority_of(db.Enqueue("snapshot_scrub", R"({"snapshot_id": 3})")),
            5);
  // kinds list shows it, as text and JSON.
  CommandResult list = Kinds(db, {"list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  Result<JsonPtr> doc = ParseJson(list.out);
  ASSERT_TRUE(doc.ok()) << list.out;
  std::map<std::string, int64_t> priorities;
  json_t* kinds = json_object_get(doc->get(), "kinds");
  for (size_t i = 0; i < json_array_size(kinds); ++i) {
    json_t* k = json_array_get(kinds, i);
    priorities[json_string_value(json_object_get(k, "kind"))] =
        json_integer_value(json_object_get(k, "priority"));
  }
  EXPECT_EQ(priorities["snapshot_scrub"], 5);
  EXPECT_EQ(priorities["snapshot_validate"], 2);
  EXPECT_EQ(priorities["gc_sweep"], 7);
  CommandResult text = Kinds(db, {"list"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("PRIORITY"), std::string::npos) << text.out;
  // Out of range, or not a number: a usage error that changes nothing
  // ("-1" reads as an option).
  for (const char* bad : {"10", "high", "-1"}) {
    CommandResult refused = Kinds(db, {"priority", "snapshot_scrub", bad});
    EXPECT_EQ(refused.code, 2) << bad << ": " << refused.out;
    if (bad[0] != '-') {
      EXPECT_NE(refused.err.find("PRIORITY must be a whole number from 0"),
                std::string::npos)
          << refused.err;
    }
  }
  // A kind nobody knows: refused without --force.
  CommandResult unknown = Kinds(db, {"priority", "nobodys_kind", "1"});
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  CommandResult forced =
      Kinds(db, {"priority", "nobodys_kind", "1", "--force"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(priority_of(db.Enqueue("nobodys_kind", "{}")), 1);
  EXPECT_EQ(priority_of(by_default), 5);
  // A producer's own, through awcctl enqueue, shown by jobs show.
  CommandResult enqueued =
      RunAwcctl({"-d", db.url(), "enqueue", "snapshot_scrub",
                 R"({"snapshot_id": 4})", "--priority", "0"},
                {});
  ASSERT_EQ(enqueued.code, 0) << enqueued.err;
  int64_t urgent = std::stoll(enqueued.out);
  EXPECT_EQ(priority_of(urgent), 0);
  CommandResult shown = RunAwcctl(
      {"-d", db.url(), "jobs", "show", std::to_string(urgent), "--json"}, {});
  ASSERT_EQ(shown.code, 0) << shown.err;
  Result<JsonPtr> job = ParseJson(shown.out);
  ASSERT_TRUE(job.ok()) << shown.out;
  EXPECT_EQ(json_integer_value(json_object_get(job->get(), "priority")), 0);
  CommandResult out_of_range =
      RunAwcctl({"-d", db.url(), "enqueue", "snapshot_scrub",
                 R"({"snapshot_id": 5})", "--priority", "10"},
                {});
  EXPECT_EQ(out_of_range.code, 2) << out_of_range.out;
}

TEST(KindLimitTest, LimitsAreSetShownAndRemoved) {
  TestDatabase db;
  db.Migrate();
  CommandResult set = Kinds(db, {"limit", "snapshot_scrub", "--host", "1"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(set.out,
            "kind snapshot_scrub limits: 1 per host, none in the fleet\n");
  // An option left out keeps its limit.
  set = Kinds(db, {"limit", "snapshot_scrub", "--fleet", "4", "--json"});
  ASSERT_EQ(set.code, 0) << set.err;
  Result<JsonPtr> doc = ParseJson(set.out);
  ASSERT_TRUE(doc.ok()) << set.out;
  EXPECT_EQ(json_integer_value(json_object_get(doc->get(), "host_limit")), 1);
  EXPECT_EQ(json_integer_value(json_object_get(doc->get(), "fleet_limit")), 4);
  CommandResult list = Kinds(db, {"list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  doc = ParseJson(list.out);
  ASSERT_TRUE(doc.ok()) << list.out;
  json_t* kinds = json_object_get(doc->get(), "kinds");
  for (size_t i = 0; i < json_array_size(kinds); ++i) {
    json_t* k = json_array_get(kinds, i);
    std::string kind = json_string_value(json_object_get(k, "kind"));
    json_t* host = json_object_get(k, "host_limit");
    json_t* fleet = json_object_get(k, "fleet_limit");
    if (kind == "snapshot_scrub") {
      EXPECT_EQ(json_integer_value(host), 1);
      EXPECT_EQ(json_integer_value(fleet), 4);
      // Its priority is as it was.
      EXPECT_EQ(json_integer_value(json_object_get(k, "priority")), 7);
    } else {
      EXPECT_TRUE(json_is_null(host)) << kind;
      EXPECT_TRUE(json_is_null(fleet)) << kind;
    }
  }
  set = Kinds(db, {"limit", "snapshot_scrub", "--host", "none"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(set.out, "kind snapshot_scrub limits: none per host, 4 in the "
                     "fleet\n");
  // Usage errors change nothing.
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{
           {"limit", "snapshot_scrub"},
           {"limit", "snapshot_scrub", "--fleet", "0"},
           {"limit", "snapshot_scrub", "--host", "many"},
           {"limit", "nobodys_kind", "--host", "1"}}) {
    CommandResult refused = Kinds(db, bad);
    EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  }
  EXPECT_EQ(db.Int("SELECT fleet_limit FROM awc.kind_settings WHERE kind = "
                   "'snapshot_scrub'"),
            4);
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.kind_settings WHERE kind = "
                   "'nobodys_kind'"),
            0);
}

// Hosts whose live workers run a release from before the limits claim
// without them: the verb sets the limit and says which they are.
TEST(KindLimitTest, HostsOfAnOlderReleaseAreNamed) {
  TestDatabase db;
  db.Migrate();
  db.Exec(
      "INSERT INTO awc.workers (host, pid, worker_id, slot, started_at, "
      "heartbeat_at, state, build, schema_version) VALUES "
      "('old-host', 1, 'awc-worker.old-host', 1, now(), now(), 'idle', "
      "'0.2.0', 21), ('new-host', 2, 'awc-worker.new-host', 1, now(), now(), "
      "'idle', '0.3.0', 23)");
  CommandResult set = Kinds(db, {"limit", "snapshot_scrub", "--fleet", "2"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_NE(set.err.find("warning: workers of old-host (0.2.0) run a release "
                         "that does not keep concurrency limits"),
            std::string::npos)
      << set.err;
  EXPECT_EQ(set.err.find("new-host"), std::string::npos) << set.err;
  EXPECT_EQ(db.Int("SELECT fleet_limit FROM awc.kind_settings WHERE kind = "
                   "'snapshot_scrub'"),
            2);
}

}  // namespace
}  // namespace awc::testing
