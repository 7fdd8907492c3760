// The metrics and log lines an operator alerts on, from a real fleet over a
// file:// store: snapshot verdicts, GC epochs and deletions, what an
// inventory reconciliation found, store requests,
// lease reclaims, the queue's depth sampled by the scheduler, the
// scrape-time instruments, and the whole scrape checked by promtool.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>

#include "cas/manifest.h"
#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"
#include "tests/support/scheduler_support.h"

namespace awc::testing {
namespace {

class AlertMetricsTest : public ::testing::Test {
 protected:
  AlertMetricsTest()
      : store_(std::move(store::NewFileStore(dir_.path()).value())),
        cas_(db_, *store_, "t1") {}
  void SetUp() override { ASSERT_TRUE(InitStore("file://" + dir_.path())); }

  void Start(std::vector<std::pair<std::string, std::string>> extra = {}) {
    port_ = FreePort();
    extra.push_back({"AWC_CAS_URL", "file://" + dir_.path()});
    extra.push_back(
        {"AWC_METRICS_LISTEN", "127.0.0.1:" + std::to_string(port_)});
    daemon_ = std::make_unique<DaemonProcess>(FleetOptions(db_, 2, extra));
    ASSERT_TRUE(daemon_->WaitForEvent("supervisor running"))
        << daemon_->Stderr();
  }
  std::string Scrape() { return ScrapeMetrics(port_); }
  // Enqueues `kind` for snapshot `id` and waits until the job is recorded.
  void RunSnapshotJob(const std::string& kind, int64_t id) {
    int64_t job =
        db_.Enqueue(kind, "{\"snapshot_id\": " + std::to_string(id) + "}");
    ASSERT_TRUE(WaitUntil([&] { return db_.JobState(job) == "COMPLETED"; }))
        << kind << " " << id << "\n"
        << daemon_->Stderr();
  }
  std::string SnapState(int64_t id) {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(id)});
  }
  // Where the file store keeps `digest` of t1.
  std::string PathOf(const std::string& digest) {
    std::string hex = digest.substr(7);
    return dir_.path() + "/t1/sha256/" + hex.substr(0, 2) + "/" + hex;
  }
  static double Get(const std::string& body, const char* op,
                    const char* result) {
    return MetricValue(body, std::string("awc_store_requests_total{store="
                                         "\"file\",op=\"") +
                                 op + "\",result=\"" + result + "\"}");
  }

  TestDatabase db_;
  TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  CasFixture cas_;
  int port_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(AlertMetricsTest, ValidationVerdictsAndTheStoreReadsBehindThem) {
  std::string a = cas_.Blob("alpha"), b = cas_.Blob("bravo!");
  std::string good = cas_.Manifest({cas_.E("a", a), cas_.E("b", b)});
  // Not a manifest at all; and a manifest naming a blob the store lacks.
  std::string junk = cas_.RawObject("{\"not\": \"a manifest\"}");
  CasFixture::Entry gone{"gone", cas::DigestOf("never stored"), false, 12};
  std::string dangling = cas_.Manifest({cas_.E("a", a), gone});
  int64_t ok_id = cas_.Snapshot(good);
  int64_t junk_id = cas_.Snapshot(junk);
  int64_t dangling_id = cas_.Snapshot(dangling);
  Start();
  RunSnapshotJob("snapshot_validate", ok_id);
  RunSnapshotJob("snapshot_validate", junk_id);
  RunSnapshotJob("snapshot_validate", dangling_id);
  ASSERT_EQ(SnapState(ok_id), "READY");
  ASSERT_EQ(SnapState(junk_id), "FAILED");
  ASSERT_EQ(SnapState(dangling_id), "FAILED");

  std::string body = Scrape();
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_snapshot_verdicts_total{kind="validate",verdict="ready"})"),
      1)
      << body;
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_snapshot_verdicts_total{kind="validate",verdict="failed"})"),
      2);
  EXPECT_EQ(
      MetricValue(
          body, R"(awc_snapshot_verdicts_total{kind="scrub",verdict="clean"})"),
      0);
  // Reads: good, a, b; junk; dangling and the missing one (its `a` is
  // already held by the READY snapshot: taken on trust, not read).
  EXPECT_EQ(Get(body, "get", "ok"), 5);
  EXPECT_EQ(Get(body, "get", "not_found"), 1);
  EXPECT_EQ(Get(body, "get", "error"), 0);
  EXPECT_EQ(Get(body, "put", "ok"), 0);
  uint64_t bytes = cas_.SizeOf(good) + cas_.SizeOf(a) + cas_.SizeOf(b) +
                   cas_.SizeOf(junk) + cas_.SizeOf(dangling);
  EXPECT_EQ(MetricValue(body, R"(awc_store_bytes_read_total{store="file"})"),
            static_cast<double>(bytes));
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_store_request_duration_seconds_count{store="file",op="get"})"),
      6);
  EXPECT_EQ(body.find("store=\"memory\""), std::string::npos);
}

TEST_F(AlertMetricsTest, DecayIsADegradedVerdictAndAWarning) {
  std::string a = cas_.Blob("alpha"), b = cas_.Blob("bravo!"),
              c = cas_.Blob("charlie");
  int64_t rotten = cas_.Snapshot(
      cas_.Manifest({cas_.E("a", a), cas_.E("b", b), cas_.E("c", c)}));
  int64_t sound = cas_.Snapshot(cas_.Manifest({cas_.E("a", a)}));
  Start();
  RunSnapshotJob("snapshot_validate", rotten);
  RunSnapshotJob("snapshot_validate", sound);
  // Bit rot in b, and c gone.
  std::ofstream(PathOf(b), std::ios::trunc) << "bravo?";
  ASSERT_EQ(unlink(PathOf(c).c_str()), 0);
  RunSnapshotJob("snapshot_scrub", rotten);
  RunSnapshotJob("snapshot_scrub", sound);
  ASSERT_EQ(SnapState(rotten), "DEGRADED");
  ASSERT_EQ(SnapState(sound), "READY");

  std::string body = Scrape();
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_snapshot_verdicts_total{kind="scrub",verdict="degraded"})"),
      1)
      << body;
  EXPECT_EQ(
      MetricValue(
          body, R"(awc_snapshot_verdicts_total{kind="scrub",verdict="clean"})"),
      1);
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_snapshot_verdicts_total{kind="validate",verdict="ready"})"),
      2);
  EXPECT_GE(Get(body, "get", "not_found"), 1);

  auto warnings =
      daemon_->EventsWith("snapshot degraded: scrub found bad objects");
  ASSERT_EQ(warnings.size(), 1u) << daemon_->Stderr();
  const json_t* w = warnings[0].get();
  EXPECT_EQ(Str(w, "level"), "warn");
  EXPECT_EQ(Int(w, "snapshot_id"), rotten);
  EXPECT_EQ(Int(w, "bad_objects"), 2);
  EXPECT_EQ(Str(w, "tenant"), "t1");
  // The job itself completed: its verdict is data, not a failure.
  auto done = daemon_->EventsWith("job completed");
  EXPECT_EQ(done.size(), 4u);
}

// A reconciliation that finds an object gone degrades the snapshot: the
// missing-objects counter and the degraded verdict both move, and a warning
// names the tenant. An orphan is counted with its bytes.
TEST_F(AlertMetricsTest, ReconciliationCountsOrphansAndLostObjects) {
  std::string kept = cas_.Blob("kept"), lost = cas_.Blob("lost forever");
  int64_t snap =
      cas_.Snapshot(cas_.Manifest({cas_.E("k", kept), cas_.E("l", lost)}));
  std::string orphan = cas::DigestOf("a crashed upload");
  ASSERT_TRUE(
      store_->Put(*store::MakeKey("t1", orphan), "a crashed upload").ok());
  ASSERT_EQ(system(("touch -d '3 days ago' " + PathOf(orphan)).c_str()), 0);
  Start();
  RunSnapshotJob("snapshot_validate", snap);
  cas_.AgeAll(60);
  ASSERT_EQ(unlink(PathOf(lost).c_str()), 0);
  int64_t job = db_.Enqueue("store_reconcile", R"({"tenant_id": "t1"})");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(job) == "COMPLETED"; }))
      << daemon_->Stderr();
  EXPECT_EQ(SnapState(snap), "DEGRADED");
  std::string body = Scrape();
  EXPECT_EQ(MetricValue(body, "awc_reconcile_missing_objects_total"), 1)
      << body;
  EXPECT_EQ(MetricValue(body, "awc_reconcile_orphans_total"), 1);
  EXPECT_EQ(MetricValue(body, "awc_reconcile_orphan_bytes_total"),
            std::string("a crashed upload").size());
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_snapshot_verdicts_total{kind="scrub",verdict="degraded"})"),
      1);
  auto warnings =
      daemon_->EventsWith("snapshots degraded: objects missing from the store");
  ASSERT_EQ(warnings.size(), 1u) << daemon_->Stderr();
  EXPECT_EQ(Str(warnings[0].get(), "tenant"), "t1");
  EXPECT_EQ(Int(warnings[0].get(), "degraded"), 1);
}

TEST_F(AlertMetricsTest, GcEpochsAndWhatTheyDeleted) {
  std::vector<std::string> doomed = {cas_.Blob("one"), cas_.Blob("two!"),
                                     cas_.Blob("three")};
  cas_.AgeAll(3 * 86400);
  std::string young = cas_.Blob("young");  // within the grace: kept
  db_.Exec("INSERT INTO awc.tenants (id) VALUES ('t2')");
  db_.Exec(
      "INSERT INTO awc.gc_locks (tenant_id, holder, expires_at) VALUES "
      "('t2', 'elsewhere', now() + interval '1 hour')");
  Start();
  int64_t sweep = db_.Enqueue("gc_sweep", R"({"tenant_id": "t1"})");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(sweep) == "COMPLETED"; }))
      << daemon_->Stderr();
  int64_t locked = db_.Enqueue("gc_sweep", R"({"tenant_id": "t2"})");
  // Deferred: back to PENDING, its attempt not spent.
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.jobs WHERE id = $1 AND state = "
               "'PENDING' AND run_at > now()",
               {std::to_string(locked)}) == 1;
  })) << daemon_->Stderr();
  for (const std::string& d : doomed) {
    EXPECT_NE(access(PathOf(d).c_str(), F_OK), 0) << d;
  }
  EXPECT_EQ(access(PathOf(young).c_str(), F_OK), 0);
  // The job is counted after its record commits, before its event.
  ASSERT_TRUE(daemon_->WaitForEvent("job deferred")) << daemon_->Stderr();

  std::string body = Scrape();
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="completed"})"), 1)
      << body;
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="deferred"})"), 1);
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="aborted"})"), 0);
  // A locked-out sweep is a value, not a failure: its own outcome and an
  // info event, nothing a dashboard would read as an error; the reason is
  // on the row.
  EXPECT_EQ(
      MetricValue(
          body,
          R"(awc_background_jobs_total{kind="gc_sweep",outcome="deferred"})"),
      1)
      << body;
  EXPECT_EQ(
      body.find(
          R"(awc_background_jobs_total{kind="gc_sweep",outcome="retried"})"),
      std::string::npos)
      << body;
  std::vector<JsonPtr> deferred = daemon_->EventsWith("job deferred");
  ASSERT_EQ(deferred.size(), 1u) << daemon_->Stderr();
  EXPECT_EQ(Str(deferred[0].get(), "level"), "info");
  EXPECT_EQ(Str(deferred[0].get(), "outcome"), "deferred");
  EXPECT_TRUE(
      daemon_->EventsWith("job retried after transient failure").empty())
      << daemon_->Stderr();
  EXPECT_NE(db_.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                       {std::to_string(locked)})
                .find("elsewhere"),
            std::string::npos);
  EXPECT_EQ(MetricValue(body, "awc_gc_objects_deleted_total"), 3);
  EXPECT_EQ(MetricValue(body, "awc_gc_bytes_deleted_total"), 3 + 4 + 5);
  // One canary batch (the default canary is larger than the plan).
  EXPECT_EQ(Get(body, "delete", "ok"), 1);
  EXPECT_EQ(Get(body, "delete", "error"), 0);
}

TEST_F(AlertMetricsTest, GcEpochsThatStopShortOfDeleting) {
  // t1: garbage, planned but kept by the dry run.
  std::string doomed = cas_.Blob("one");
  cas_.AgeAll(3 * 86400);
  // t2: a snapshot VALIDATING for longer than the grace (86400 s): its
  // closure is unknown, so GC refuses to plan.
  CasFixture t2(db_, *store_, "t2");
  int64_t pending = t2.Snapshot(t2.Blob("pending"), "VALIDATING");
  db_.Exec(
      "UPDATE awc.snapshots SET created_at = now() - interval '2 days' "
      "WHERE id = $1",
      {std::to_string(pending)});
  // t3: an epoch cut short after its canary batch, as a crash leaves it,
  // one of whose deleted objects a READY snapshot references: the planning
  // error the canary exists to catch. Its epoch is not a dry run.
  CasFixture t3(db_, *store_, "t3");
  std::string live = cas::DigestOf("referenced after all");
  t3.Snapshot(live, "READY");
  std::string epoch = db_.Scalar(
      "INSERT INTO awc.gc_epochs (tenant_id, state, grace_secs, batch_size, "
      "canary_size) VALUES ('t3', 'DELETING', 86400, 1000, 1) RETURNING id");
  db_.Exec(
      "INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, size, "
      "seq, state) VALUES ($1, 't3', $2, 5, 1, 'DELETED')",
      {epoch, live});
  Start({{"AWC_GC_DRY_RUN", "1"}});

  for (const char* tenant : {"t1", "t2", "t3"}) {
    int64_t sweep = db_.Enqueue(
        "gc_sweep", R"({"tenant_id": ")" + std::string(tenant) + R"("})");
    ASSERT_TRUE(WaitUntil([&] { return db_.JobState(sweep) == "COMPLETED"; }))
        << tenant << "\n"
        << daemon_->Stderr();
  }
  EXPECT_EQ(access(PathOf(doomed).c_str(), F_OK), 0);
  EXPECT_EQ(db_.Scalar("SELECT string_agg(tenant_id || ' ' || state, ', ' "
                       "ORDER BY tenant_id) FROM awc.gc_epochs"),
            "t1 COMPLETED, t2 REFUSED, t3 ABORTED");

  std::string body = Scrape();
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="dry_run"})"), 1)
      << body;
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="refused"})"), 1);
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="aborted"})"), 1);
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="completed"})"), 0);
  EXPECT_EQ(MetricValue(body, R"(awc_gc_epochs_total{result="deferred"})"), 0);
  EXPECT_EQ(MetricValue(body, "awc_gc_objects_deleted_total"), 0);
  // No delete request reached the store.
  EXPECT_EQ(body.find("op=\"delete\""), std::string::npos);
  auto aborted =
      daemon_->EventsWith("GC canary found a live object; epoch aborted");
  ASSERT_EQ(aborted.size(), 1u) << daemon_->Stderr();
  EXPECT_EQ(Str(aborted[0].get(), "digest"), live);
}

TEST_F(AlertMetricsTest, ReclaimedLeasesAreCounted) {
  // Left behind by workers that died: one with attempts left (requeued),
  // one with none (dead-lettered); and one whose lease is still good.
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, state, attempts, max_attempts, "
      "locked_by, locked_until, lease_token) VALUES "
      "('test_complete', '{}', 'RUNNING', 1, 5, 'gone-1', "
      "now() - interval '1 second', 7), "
      "('test_complete', '{}', 'RUNNING', 5, 5, 'gone-2', "
      "now() - interval '1 second', 8), "
      "('test_complete', '{}', 'RUNNING', 1, 5, 'alive-1', "
      "now() + interval '1 hour', 9)");
  Start();
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int(
               "SELECT count(*) FROM awc.jobs WHERE state IN "
               "('COMPLETED', 'FAILED')") == 2;
  })) << daemon_->Stderr();
  ASSERT_TRUE(daemon_->WaitForEvent("job dead-lettered"));
  // A reclaim is counted by the worker that ran it, right after its commit.
  std::string body;
  EXPECT_TRUE(WaitUntil([&] {
    body = Scrape();
    return MetricValue(body, "awc_lease_reclaims_total") == 2;
  })) << body;
  // The dead letter's event carries why it died.
  auto dead = daemon_->EventsWith("job dead-lettered");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(Str(dead[0].get(), "dead_reason"), "attempts_exhausted");
}

TEST_F(AlertMetricsTest, TheMastersOwnInstruments) {
  Start();
  ASSERT_TRUE(WaitUntil([&] {
    return MetricValue(Scrape(), R"(awc_workers{phase="idle"})") == 2;
  }));
  std::string body = Scrape();
  EXPECT_EQ(
      MetricValue(body, std::string("awc_build_info{version=\"") + AWC_VERSION +
                            "\",s3=\"" + (AWC_WITH_S3 ? "yes" : "no") + "\"}"),
      1)
      << body;
  EXPECT_EQ(MetricValue(body, R"(awc_workers{phase="down"})"), 0);
  EXPECT_EQ(MetricValue(body, R"(awc_workers{phase="busy"})"), 0);
  EXPECT_GT(MetricValue(body, "process_open_fds"), 2);
  EXPECT_GT(MetricValue(body, "process_max_fds"), 0);
  EXPECT_GT(MetricValue(body, "process_resident_memory_bytes"), 1e6);
  EXPECT_GT(MetricValue(body, "process_virtual_memory_bytes"), 1e6);
  EXPECT_GE(MetricValue(body, "process_cpu_seconds_total"), 0);
  // The master started within the last hour.
  double started = MetricValue(body, "process_start_time_seconds");
  EXPECT_GT(started, static_cast<double>(time(nullptr)) - 3600);
  EXPECT_LE(started, static_cast<double>(time(nullptr)) + 1);
}

TEST_F(AlertMetricsTest, TheSchedulerSamplesTheQueueDepth) {
  PauseBuiltins(db_);  // only the test's jobs are in the queue
  db_.Exec(
      "INSERT INTO awc.jobs (kind, state, finished_at) VALUES "
      "('gc_sweep', 'FAILED', now()), ('gc_sweep', 'FAILED', now()), "
      "('junk_kind', 'FAILED', now())");
  db_.Exec(
      "INSERT INTO awc.jobs (kind, payload, run_at) VALUES "
      "('snapshot_scrub', '{\"snapshot_id\": 1}', now() + interval '1 "
      "hour')");
  Start({{"AWC_SCHEDULER", "on"}, {"AWC_WORKER_CONCURRENCY", "1"}});
  // The one worker busy, a job ready for a minute waits behind it; so does
  // one inserted just now with a run_at a year ago, which has waited only
  // since it was inserted.
  int64_t busy = db_.Enqueue("test_sleep", R"({"ms": 60000})");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(busy) == "RUNNING"; }));
  db_.Exec(
      "INSERT INTO awc.jobs (kind, run_at, created_at) VALUES "
      "('test_complete', now() - interval '60 seconds', now() - interval '60 "
      "seconds'), ('workspace_expire', now() - interval '365 days', now())");
  // A sample is published one kind after another, in kind order, and a
  // scrape may fall between two of them: wait for the last kind of the
  // sample that saw both inserted jobs.
  std::string body;
  ASSERT_TRUE(WaitUntil([&] {
    body = Scrape();
    return MetricValue(
               body,
               R"(awc_queue_jobs{kind="test_complete",state="pending"})") ==
               1 &&
           MetricValue(
               body,
               R"(awc_queue_jobs{kind="workspace_expire",state="pending"})") ==
               1;
  })) << body
      << daemon_->Stderr();
  EXPECT_EQ(
      MetricValue(body, R"(awc_queue_jobs{kind="test_sleep",state="running"})"),
      1);
  EXPECT_EQ(
      MetricValue(body, R"(awc_queue_jobs{kind="gc_sweep",state="failed"})"),
      2);
  EXPECT_EQ(
      MetricValue(body, R"(awc_queue_jobs{kind="unknown",state="failed"})"), 1);
  EXPECT_EQ(
      MetricValue(body,
                  R"(awc_queue_jobs{kind="snapshot_scrub",state="pending"})"),
      1);
  EXPECT_EQ(
      MetricValue(body, R"(awc_queue_jobs{kind="gc_sweep",state="pending"})"),
      0);
  EXPECT_GE(
      MetricValue(body,
                  R"(awc_queue_oldest_pending_seconds{kind="test_complete"})"),
      60);
  EXPECT_EQ(
      MetricValue(body,
                  R"(awc_queue_jobs{kind="workspace_expire",state="pending"})"),
      1);
  EXPECT_LT(
      MetricValue(
          body, R"(awc_queue_oldest_pending_seconds{kind="workspace_expire"})"),
      3600);
  // Not ready yet: nothing has waited.
  EXPECT_EQ(
      MetricValue(body,
                  R"(awc_queue_oldest_pending_seconds{kind="snapshot_scrub"})"),
      0);
  EXPECT_EQ(body.find("junk_kind"), std::string::npos);
}

TEST_F(AlertMetricsTest, TheScrubPlannerSaysWhenItsBudgetCannotKeepThePromise) {
  // A terabyte referenced and never verified, two days old: a day's promise
  // at 1 MB/s cannot hold.
  db_.Exec(
      "INSERT INTO awc.objects (tenant_id, digest, size, refs, created_at) "
      "VALUES ('t1', 'sha256:' || repeat('7', 64), 1000000000000, 1, now() "
      "- interval '2 days')");
  Start({{"AWC_SCHEDULER", "on"},
         {"AWC_SCRUB_INTERVAL_SECS", "86400"},
         {"AWC_SCRUB_BUDGET_MB_PER_SEC", "1"}});
  std::string body;
  ASSERT_TRUE(WaitUntil([&] {
    body = Scrape();
    return MetricValue(body, "awc_scrub_budget_bytes_per_second") > 0;
  })) << body
      << daemon_->Stderr();
  EXPECT_EQ(MetricValue(body, "awc_scrub_budget_bytes_per_second"), 1e6);
  EXPECT_GT(MetricValue(body, "awc_scrub_required_bytes_per_second"), 1e6);
  EXPECT_NEAR(MetricValue(body, "awc_scrub_oldest_unverified_seconds"),
              2 * 86400, 600);
  EXPECT_LT(MetricValue(body, "awc_scrub_verified_ratio"), 1);
  EXPECT_TRUE(daemon_->WaitForEvent(
      "scrub budget too small for the coverage promise: raise "
      "AWC_SCRUB_BUDGET_MB_PER_SEC or AWC_SCRUB_INTERVAL_SECS"))
      << daemon_->Stderr();
  EXPECT_TRUE(daemon_->WaitForEvent(
      "scrub coverage promise broken: an object has waited longer than "
      "AWC_SCRUB_INTERVAL_SECS"))
      << daemon_->Stderr();
}

// A session idle in transaction holds the horizon: the scheduler's first
// sample (at its start) puts it on /metrics, how many transactions behind
// and for how long.
TEST_F(AlertMetricsTest, AHeldHorizonShowsOnMetrics) {
  auto pin = db_.HoldHorizon("nightly-report");
  for (int i = 0; i < 3; ++i) db_.Exec("SELECT txid_current()");
  usleep(1'100'000);
  Start({{"AWC_SCHEDULER", "on"}});
  std::string body;
  ASSERT_TRUE(WaitUntil([&] {
    body = Scrape();
    return MetricValue(body, "awc_database_horizon_held_seconds") > 0;
  })) << body
      << daemon_->Stderr();
  EXPECT_GE(MetricValue(body, "awc_database_horizon_held_seconds"), 1);
  EXPECT_GE(MetricValue(body, "awc_database_horizon_xids"), 3);
  pin->Rollback();
}

// promtool: PROMTOOL names it (make check sets it), else the one on PATH.
std::string Promtool() {
  if (const char* named = getenv("PROMTOOL"); named != nullptr && *named) {
    return named;
  }
  for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
    std::string path = std::string(dir) + "/promtool";
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

TEST_F(AlertMetricsTest, AScrapeOfEveryInstrumentPassesPromtool) {
  std::string promtool = Promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed";
  ASSERT_EQ(access(promtool.c_str(), X_OK), 0)
      << "PROMTOOL=" << promtool << " is not an executable";
  std::string a = cas_.Blob("alpha");
  int64_t snap = cas_.Snapshot(cas_.Manifest({cas_.E("a", a)}));
  cas_.Blob("old");
  cas_.AgeAll(3 * 86400);
  PauseBuiltins(db_);
  Start({{"AWC_SCHEDULER", "on"}});
  RunSnapshotJob("snapshot_validate", snap);
  RunSnapshotJob("snapshot_scrub", snap);
  int64_t sweep = db_.Enqueue("gc_sweep", R"({"tenant_id": "t1"})");
  db_.Enqueue("no_such_kind", "{}");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(sweep) == "COMPLETED"; }));
  ASSERT_TRUE(daemon_->WaitForEvent("job dead-lettered"));
  std::string body;
  ASSERT_TRUE(WaitUntil([&] {
    body = Scrape();
    return body.find("awc_queue_jobs{") != std::string::npos;
  })) << body;
  ASSERT_NE(body.find("awc_store_request_duration_seconds_bucket"),
            std::string::npos);
  // The workers' database errors, both counters, there from the start.
  ASSERT_NE(body.find("\nawc_api_errors_total{component=\"worker\"} "),
            std::string::npos);
  ASSERT_NE(body.find("\nawc_worker_other_database_errors_total "),
            std::string::npos);
  std::string file = dir_.path() + "/scrape.txt";
  std::ofstream(file) << body;
  CommandResult r = RunProcess(
      "/bin/sh", {"-c", "'" + promtool + "' check metrics < '" + file + "'"},
      {});
  EXPECT_EQ(r.code, 0) << r.out << r.err << "\n" << body;
  EXPECT_EQ(r.out + r.err, "") << "promtool has remarks";
}

}  // namespace
}  // namespace awc::testing
