#include "worker/worker_process_reporter.h"

#include <gtest/gtest.h>
#include <jansson.h>

#include <string>
#include <vector>

#include "obs/log.h"
#include "obs/log_testing.h"
#include "obs/metrics_testing.h"

namespace awc::worker {
namespace {

using obs::testing::ApiErrors;
using obs::testing::JobCount;
using obs::testing::JobLag;
using obs::testing::LeaseReclaims;
using obs::testing::OtherDatabaseErrors;
using obs::testing::TotalJobs;

using obs::WorkerPhase;

// One emitted event, parsed.
struct Line {
  std::string id, msg, level;
  JsonPtr obj;
};

class ProcessReporterTest : public ::testing::Test {
 protected:
  ProcessReporterTest()
      : metrics_(std::move(obs::Metrics::CreateShared().value())),
        status_(std::move(obs::WorkerStatusTable::CreateShared(3).value())),
        registry_(Builtins()),
        reporter_(&metrics_, &status_, 1, &registry_) {
    job_.id = 81;
    job_.kind = "snapshot_validate";
    job_.attempts = 2;
  }

  void SetUp() override { obs::SetLogWorker("t-2"); }
  void TearDown() override { obs::SetLogWorker("awc-worker"); }

  // The events written since the last call.
  const std::vector<Line>& Events() {
    lines_.clear();
    for (JsonPtr& e : log_.Events()) {
      lines_.push_back({Str(e.get(), "id"), Str(e.get(), "msg"),
                        Str(e.get(), "level"), std::move(e)});
    }
    return lines_;
  }

  static std::string Str(const json_t* obj, const char* key) {
    const json_t* v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : "<missing>";
  }

  const obs::WorkerSlotStatus& Slot() const { return status_.slot(1); }

  static handlers::Registry Builtins() {
    handlers::Registry r;
    handlers::RegisterBuiltinHandlers(r);
    return r;
  }

  obs::Metrics metrics_;
  obs::WorkerStatusTable status_;
  handlers::Registry registry_;
  WorkerProcessReporter reporter_;
  queue::Job job_;
  obs::CapturedLog log_;
  std::vector<Line> lines_;
};

TEST_F(ProcessReporterTest, StatesGoToTheWorkersSlot) {
  reporter_.StateChanged(WorkerState::kConnecting, nullptr);
  EXPECT_EQ(status_.Phase(1), WorkerPhase::kConnecting);
  reporter_.StateChanged(WorkerState::kBusy, &job_);
  EXPECT_EQ(status_.Phase(1), WorkerPhase::kBusy);
  EXPECT_EQ(Slot().job_id.load(), 81);
  reporter_.StateChanged(WorkerState::kIdle, nullptr);
  EXPECT_EQ(status_.Phase(1), WorkerPhase::kIdle);
  EXPECT_EQ(Slot().job_id.load(), 0);
  reporter_.StateChanged(WorkerState::kStopping, nullptr);
  EXPECT_EQ(status_.Phase(1), WorkerPhase::kStopping);
  // Other slots are left alone.
  EXPECT_EQ(status_.Phase(0), WorkerPhase::kDown);
  EXPECT_TRUE(Events().empty());
}

TEST_F(ProcessReporterTest, ARecordedJobGivesOneEventAndItsMetrics) {
  queue::Recorded rec{true, queue::JobState::kCompleted, 2, 4.5};
  reporter_.JobRecorded(job_, rec, 1.25);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, "job_81");
  EXPECT_EQ(events[0].msg, "job completed");
  EXPECT_EQ(Str(events[0].obj.get(), "outcome"), "completed");
  EXPECT_EQ(Str(events[0].obj.get(), "state"), "COMPLETED");
  EXPECT_EQ(
      json_number_value(json_object_get(events[0].obj.get(), "duration_s")),
      1.25);
  EXPECT_EQ(json_object_get(events[0].obj.get(), "discarded"), nullptr);
  EXPECT_EQ(JobCount(metrics_, "snapshot_validate", "completed"), 1);
  EXPECT_EQ(JobLag(metrics_, "snapshot_validate"), 4.5);
  EXPECT_EQ(Slot().jobs_done.load(), 1);
}

TEST_F(ProcessReporterTest, ADiscardedOutcomeCountsUnderTheRowsState) {
  queue::Recorded rec{false, queue::JobState::kCancelled, 2, 1};
  reporter_.JobRecorded(job_, rec, 0.5);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].msg, "job cancelled");
  EXPECT_EQ(events[0].level, "error");
  EXPECT_TRUE(json_is_true(json_object_get(events[0].obj.get(), "discarded")));
  EXPECT_EQ(JobCount(metrics_, "snapshot_validate", "cancelled"), 1);
  EXPECT_EQ(TotalJobs(metrics_), 1);
  EXPECT_EQ(Slot().jobs_done.load(), 1);
}

TEST_F(ProcessReporterTest, ADiscardedOutcomeOfAJobTakenOverIsNotCountedAgain) {
  // Taken back by another worker's reclaim (which counted it) and run
  // again there: this worker's late outcome shows, and counts nowhere.
  queue::Recorded rec{false, queue::JobState::kCompleted, 2, 7};
  rec.taken_over = true;
  reporter_.JobRecorded(job_, rec, 0.5);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].msg, "job completed");
  EXPECT_TRUE(json_is_true(json_object_get(events[0].obj.get(), "discarded")));
  EXPECT_EQ(TotalJobs(metrics_), 0);
  EXPECT_EQ(JobLag(metrics_, "snapshot_validate"), 0);
  // The handler did run that long.
  EXPECT_EQ(obs::testing::Read(metrics_, obs::MetricId::kJobDuration,
                               {"snapshot_validate"}),
            1);
  // Discarded under its own token (a record whose reply was lost, tried
  // again): nobody else counted it.
  rec.taken_over = false;
  reporter_.JobRecorded(job_, rec, 0.5);
  EXPECT_EQ(JobCount(metrics_, "snapshot_validate", "completed"), 1);
}

TEST_F(ProcessReporterTest, AReclaimedJobIsCountedButNotAsProcessedHere) {
  reporter_.JobReclaimed({5, "gc_sweep", queue::JobState::kPending, 1, 9});
  EXPECT_EQ(LeaseReclaims(metrics_), 1);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, "job_5");
  EXPECT_EQ(events[0].msg, "job retried after transient failure");
  EXPECT_EQ(Str(events[0].obj.get(), "reason"), "lease_expired");
  EXPECT_EQ(json_object_get(events[0].obj.get(), "duration_s"), nullptr);
  EXPECT_EQ(JobCount(metrics_, "gc_sweep", "retried"), 1);
  EXPECT_EQ(Slot().jobs_done.load(), 0);
}

TEST_F(ProcessReporterTest, ACrashedWorkersJobIsCountedAsACrashNotALease) {
  queue::Reclaimed job{7,
                       "gc_sweep",
                       queue::JobState::kFailed,
                       3,
                       1,
                       queue::DeadReason::kWorkerCrashed,
                       queue::TakenBack::kWorkerDied};
  reporter_.JobReclaimed(job);
  EXPECT_EQ(LeaseReclaims(metrics_), 0);
  EXPECT_EQ(obs::testing::Read(metrics_, obs::MetricId::kCrashRequeues, {}), 1);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].msg, "job dead-lettered");
  EXPECT_EQ(Str(events[0].obj.get(), "reason"), "worker_died");
  EXPECT_EQ(Str(events[0].obj.get(), "dead_reason"), "worker_crashed");
  EXPECT_EQ(JobCount(metrics_, "gc_sweep", "failed"), 1);
}

TEST_F(ProcessReporterTest, ASilentHoldersJobIsCountedApartFromLeases) {
  queue::Reclaimed job{8,
                       "gc_sweep",
                       queue::JobState::kPending,
                       2,
                       1,
                       queue::DeadReason::kNone,
                       queue::TakenBack::kHolderSilent};
  reporter_.JobReclaimed(job);
  EXPECT_EQ(LeaseReclaims(metrics_), 0);
  EXPECT_EQ(obs::testing::Read(metrics_, obs::MetricId::kCrashRequeues, {}), 0);
  EXPECT_EQ(
      obs::testing::Read(metrics_, obs::MetricId::kSilentWorkerReclaims, {}),
      1);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].msg, "job retried after transient failure");
  EXPECT_EQ(Str(events[0].obj.get(), "reason"), "holder_silent");
  EXPECT_EQ(JobCount(metrics_, "gc_sweep", "retried"), 1);
}

TEST_F(ProcessReporterTest, KindsTheRegistryDoesNotKnowAreLabelledUnknown) {
  // More invented kinds than an instrument has label sets: the real kinds
  // still get their own label, and the event keeps the job's kind.
  queue::Recorded failed{true, queue::JobState::kFailed, 1, 0};
  for (int i = 0; i < 200; ++i) {
    queue::Job junk = job_;
    junk.kind = "junk_" + std::to_string(i);
    reporter_.JobRecorded(junk, failed, 0.01);
  }
  reporter_.JobReclaimed({6, "junk_x", queue::JobState::kFailed, 5, 1});
  queue::Job gc = job_;
  gc.kind = "gc_sweep";
  reporter_.JobRecorded(gc, failed, 0.01);
  EXPECT_EQ(JobCount(metrics_, "unknown", "failed"), 201);
  EXPECT_EQ(JobCount(metrics_, "gc_sweep", "failed"), 1);
  std::string text = metrics_.RenderPrometheus();
  EXPECT_EQ(text.find("cardinality_overflow"), std::string::npos) << text;
  EXPECT_EQ(text.find("junk_"), std::string::npos);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 202u);
  EXPECT_EQ(Str(events[0].obj.get(), "kind"), "junk_0");
}

TEST_F(ProcessReporterTest, DatabaseTroubleCountsErrorsAndFollowsTheSession) {
  reporter_.DatabaseConnected(false);
  EXPECT_TRUE(Slot().db_ok.load());
  EXPECT_TRUE(Events().empty());

  // The transient errors of claims and records are API errors.
  reporter_.DatabaseError("claim", Status::Transient("deadlock"), false);
  EXPECT_TRUE(Slot().db_ok.load());
  reporter_.DatabaseError("record", Status::Transient("closed"), true);
  EXPECT_FALSE(Slot().db_ok.load());
  EXPECT_EQ(ApiErrors(metrics_), 2);
  EXPECT_EQ(OtherDatabaseErrors(metrics_), 0);
  // Every other failed round trip is counted apart.
  reporter_.DatabaseError("claim", Status::Internal("no such table"), false);
  reporter_.DatabaseError("record", Status::InvalidArgument("refused"), false);
  for (const char* step : {"reclaim", "release", "listen", "heartbeat"}) {
    reporter_.DatabaseError(step, Status::Transient("deadlock"), false);
  }
  reporter_.LeaseRenewalFailed(job_, Status::Transient("closed"));
  reporter_.JobCheckFailed(job_, Status::Transient("closed"));
  EXPECT_EQ(ApiErrors(metrics_), 2);
  EXPECT_EQ(OtherDatabaseErrors(metrics_), 8);
  const std::vector<Line>& errors = Events();
  ASSERT_EQ(errors.size(), 10u);
  EXPECT_EQ(errors[0].msg, "database error");
  EXPECT_EQ(Str(errors[0].obj.get(), "step"), "claim");
  EXPECT_EQ(errors[1].msg, "database connection lost");
  EXPECT_EQ(errors[8].id, "job_81");
  EXPECT_EQ(errors[8].msg, "lease renewal failed");
  EXPECT_EQ(errors[9].id, "job_81");
  EXPECT_EQ(errors[9].msg, "job check failed");
  EXPECT_EQ(errors[9].level, "warn");

  // Failing to open a session is neither.
  reporter_.DatabaseUnavailable(Status::Transient("refused"), 0.5);
  EXPECT_EQ(ApiErrors(metrics_), 2);
  EXPECT_EQ(OtherDatabaseErrors(metrics_), 8);
  reporter_.DatabaseConnected(true);
  EXPECT_TRUE(Slot().db_ok.load());
  const std::vector<Line>& reconnect = Events();
  ASSERT_EQ(reconnect.size(), 2u);
  EXPECT_EQ(reconnect[0].msg, "database unavailable");
  EXPECT_EQ(
      json_number_value(json_object_get(reconnect[0].obj.get(), "retry_in_s")),
      0.5);
  EXPECT_EQ(reconnect[1].msg, "database reconnected");
}

// A session on a server that cannot write marks the slot until a session
// that can is open (the master's /readyz counts such slots).
TEST_F(ProcessReporterTest, AReadOnlySessionMarksTheSlotUntilAWritableOne) {
  reporter_.DatabaseConnected(false);
  EXPECT_FALSE(Slot().db_read_only.load());
  reporter_.DatabaseUnavailable(
      Status::Transient("database session is read-only: the server is a "
                        "standby (in recovery)"),
      0.25);
  EXPECT_TRUE(Slot().db_read_only.load());
  EXPECT_FALSE(Slot().db_ok.load());
  reporter_.DatabaseUnavailable(Status::Transient("refused"), 0.5);
  EXPECT_FALSE(Slot().db_read_only.load()) << "unreachable is not read-only";
  reporter_.DatabaseConnected(true);
  reporter_.DatabaseError(
      "claim",
      Status::Transient("database session is read-only (SQLSTATE 25006): "
                        "cannot execute UPDATE in a read-only transaction"),
      true);
  EXPECT_TRUE(Slot().db_read_only.load());
  reporter_.DatabaseConnected(true);
  EXPECT_FALSE(Slot().db_read_only.load());
  EXPECT_TRUE(Slot().db_ok.load());
}

TEST_F(ProcessReporterTest, AnOutcomeNotRecordedIsAnError) {
  reporter_.OutcomeNotRecorded(job_);
  const std::vector<Line>& events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, "job_81");
  EXPECT_EQ(events[0].level, "error");
  EXPECT_EQ(Str(events[0].obj.get(), "kind"), "snapshot_validate");
  EXPECT_EQ(TotalJobs(metrics_), 0);
}

}  // namespace
}  // namespace awc::worker
