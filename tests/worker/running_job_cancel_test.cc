// A cancel reaches a running handler at its next checkpoint, within about a
// second, not at its next lease renewal (docs/queue.md, "Cancelling a
// running job"): on the real daemon, with a lease of 300 s (a renewal every
// 100 s), a scrub held back by the host's read budget and a test handler
// are cancelled by SQL and by `awcctl jobs cancel`, in both pool modes.
// The bounds are generous for a loaded machine and still far below the
// renewal's 100 s.
#include <gtest/gtest.h>

#include <sstream>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"
#include "tests/support/pgbouncer.h"

namespace awc::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

// Far below a renewal (a third of the 300 s lease), far above a second.
constexpr double kStopBound = 15;

// The series of awc_background_jobs_total of `kind` in a scrape, as
// "outcome=value" lines.
std::string JobCounts(const std::string& body, const std::string& kind) {
  std::string prefix = "awc_background_jobs_total{kind=\"" + kind + "\"";
  std::istringstream in(body);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.starts_with(prefix)) out += line.substr(prefix.size()) + "\n";
  }
  return out;
}

// Waits for the cancelled job `id` of `kind` to stop, within kStopBound,
// and checks its one event (an error, showing the cancel, its outcome
// discarded), its row left CANCELLED, and that the worker went on to job
// `next`.
void ExpectStoppedByTheCancel(DaemonProcess& fleet, TestDatabase& db,
                              int64_t id, const std::string& kind,
                              int64_t next) {
  ASSERT_TRUE(fleet.WaitForEvent("job cancelled", kStopBound))
      << fleet.Stderr();
  EXPECT_TRUE(
      WaitUntil([&] { return db.JobState(next) == "COMPLETED"; }, kStopBound))
      << fleet.Stderr();
  EXPECT_EQ(db.JobState(id), "CANCELLED");
  auto events = fleet.EventsWith("job cancelled", "job_" + std::to_string(id));
  ASSERT_EQ(events.size(), 1u) << fleet.Stderr();
  const json_t* e = events[0].get();
  EXPECT_EQ(Str(e, "level"), "error");
  EXPECT_EQ(Str(e, "kind"), kind);
  EXPECT_EQ(Str(e, "outcome"), "cancelled");
  EXPECT_EQ(Str(e, "state"), "CANCELLED");
  EXPECT_TRUE(json_is_true(json_object_get(e, "discarded")));
  // Its only event: the job was processed once.
  size_t all = 0;
  for (const JsonPtr& any : fleet.Events()) {
    all += Str(any.get(), "id") == "job_" + std::to_string(id) &&
                   !Str(any.get(), "outcome").empty()
               ? 1
               : 0;
  }
  EXPECT_EQ(all, 1u) << fleet.Stderr();
}

TEST(CancelRunningJobTest, AScrubHeldBackByTheReadBudgetStopsSoonAfter) {
  TestDatabase db;
  TempDir dir;
  ASSERT_TRUE(InitStore("file://" + dir.path()));
  auto store = store::NewFileStore(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  CasFixture cas(db, **store, "t1");
  // 128 objects of 256 KiB: at 1 MB/s, after its first batch of 16 the
  // scrub waits about 4 s for each of the next seven, half a minute in all.
  std::vector<CasFixture::Entry> entries;
  for (int i = 0; i < 128; ++i) {
    std::string name = "f" + std::to_string(1000 + i);
    entries.push_back(cas.E(
        name,
        cas.Blob(std::string(256 * 1024, 'a' + i % 26) + std::to_string(i))));
  }
  int64_t snap = cas.Snapshot(cas.Manifest(entries));
  int port = FreePort();
  DaemonProcess fleet(FleetOptions(
      db, 1,
      {{"AWC_CAS_URL", "file://" + dir.path()},
       {"AWC_WORKER_LEASE_SECS", "300"},
       {"AWC_SCRUB_BUDGET_MB_PER_SEC", "1"},
       {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}}));
  std::string payload = "{\"snapshot_id\": " + std::to_string(snap) + "}";
  int64_t validate = db.Enqueue("snapshot_validate", payload);
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(validate) == "COMPLETED"; }))
      << fleet.Stderr();

  int64_t scrub = db.Enqueue("snapshot_scrub", payload);
  ASSERT_GT(fleet.ChildRunning(scrub), 0) << fleet.Stderr();
  int64_t next = db.Enqueue("test_complete", "{}");
  // A producer's cancel, while the budget holds the scrub's reads back.
  db.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
          {std::to_string(scrub)});
  ExpectStoppedByTheCancel(fleet, db, scrub, "snapshot_scrub", next);
  // Nothing of the scrub committed: no verdict, no verified objects.
  EXPECT_EQ(db.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snap)}),
            "READY");
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                   "'snapshot.scrub'"),
            0);
  // Counted once, as cancelled.
  std::string body = ScrapeMetrics(port);
  EXPECT_EQ(JobCounts(body, "snapshot_scrub"), ",outcome=\"cancelled\"} 1\n")
      << body;
}

TEST(CancelRunningJobTest, AwcctlJobsCancelStopsAHandlerAtItsNextCheckpoint) {
  TestDatabase db;
  db.Migrate();
  int port = FreePort();
  DaemonProcess fleet(FleetOptions(
      db, 1,
      {{"AWC_WORKER_LEASE_SECS", "300"},
       {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port)}}));
  // Ten minutes of sleep in 10 ms steps, each a checkpoint.
  int64_t slow = db.Enqueue("test_sleep", R"({"ms": 600000})");
  ASSERT_GT(fleet.ChildRunning(slow), 0) << fleet.Stderr();
  int64_t next = db.Enqueue("test_complete", "{}");
  CommandResult r = RunAwcctl({"jobs", "cancel", std::to_string(slow)},
                              {{"DATABASE_URL", db.url()}});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "cancelled " + std::to_string(slow) + "\ncancelled 1 of 1 job\n");
  ExpectStoppedByTheCancel(fleet, db, slow, "test_sleep", next);
  EXPECT_EQ(db.Scalar("SELECT coalesce(result::text, 'none') FROM awc.jobs "
                      "WHERE id = $1",
                      {std::to_string(slow)}),
            "none");
  std::string body = ScrapeMetrics(port);
  EXPECT_EQ(JobCounts(body, "test_sleep"), ",outcome=\"cancelled\"} 1\n")
      << body;
}

TEST(CancelRunningJobTest, ACancelReachesTheHandlerThroughATransactionPooler) {
  // Behind PgBouncer in transaction mode nothing LISTENs: the checkpoints'
  // reads alone tell the handler.
  TestDatabase db;
  db.Migrate();
  PgBouncer bouncer({.pool_mode = "transaction", .pool_size = 2});
  ASSERT_TRUE(bouncer.ok());
  DaemonProcess fleet(FleetOptions(db, 1,
                                   {{"DATABASE_URL", bouncer.Url(db.name())},
                                    {"AWC_DATABASE_POOL_MODE", "transaction"},
                                    {"AWC_WORKER_LEASE_SECS", "300"}}));
  int64_t slow = db.Enqueue("test_sleep", R"({"ms": 600000})");
  ASSERT_GT(fleet.ChildRunning(slow), 0) << fleet.Stderr() << bouncer.Log();
  int64_t next = db.Enqueue("test_complete", "{}");
  db.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
          {std::to_string(slow)});
  ExpectStoppedByTheCancel(fleet, db, slow, "test_sleep", next);
}

}  // namespace
}  // namespace awc::testing
