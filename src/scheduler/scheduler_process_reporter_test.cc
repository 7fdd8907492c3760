#include "scheduler/scheduler_process_reporter.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "obs/log.h"
#include "obs/log_testing.h"
#include "obs/metrics_testing.h"
#include "scheduler/spec.h"

namespace awc::scheduler {
namespace {

using obs::testing::QueueJobs;
using obs::testing::QueueOldestPending;
using obs::testing::QueuePriorityOldestReady;
using obs::testing::ScheduleEnqueued;
using obs::testing::ScheduleRuns;

class SchedulerReporterTest : public ::testing::Test {
 protected:
  SchedulerReporterTest()
      : metrics_(std::move(obs::Metrics::CreateShared().value())),
        reporter_(&metrics_, "host-a-scheduler/h/1",
                  {"gc_sweep", "snapshot_scrub", "snapshot_validate"},
                  /*set_title=*/false) {}

  // The events written since the last call.
  std::vector<JsonPtr> Events() { return log_.Events(); }
  static std::string Str(const JsonPtr& e, const char* key) {
    json_t* v = json_object_get(e.get(), key);
    return json_is_string(v) ? json_string_value(v) : "";
  }
  static int64_t Int(const JsonPtr& e, const char* key) {
    json_t* v = json_object_get(e.get(), key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
  }

  obs::Metrics metrics_;
  SchedulerProcessReporter reporter_;
  obs::CapturedLog log_;
};

TEST_F(SchedulerReporterTest, ClampsAreWarningsNamingTheScheduleOrTheHolder) {
  ScheduleClamp s;
  s.schedule = "nightly";
  s.spec = "@daily";
  s.period_secs = 86400;
  s.from_us = 2111702400LL * kMicros;  // 2036-12-01
  s.to_us = 1796083200LL * kMicros;    // 2026-12-01
  reporter_.ScheduleClamped(s);
  LeaseClamp l;
  l.name = "scheduler";
  l.holder = "host-b-scheduler/h/2";
  l.token = 42;
  l.expires_at = "2036-12-01T00:00:00.000Z";
  l.clamped_to = "2026-12-01T00:00:30.000Z";
  l.lease_secs = 30;
  reporter_.LeaseClamped(l);
  std::vector<JsonPtr> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(Str(events[0], "level"), "warn");
  EXPECT_EQ(Str(events[0], "id"), "schedule_nightly");
  EXPECT_EQ(Str(events[0], "msg"), "schedule next run clamped");
  EXPECT_EQ(Str(events[0], "schedule"), "nightly");
  EXPECT_EQ(Str(events[0], "spec"), "@daily");
  EXPECT_EQ(Int(events[0], "period_s"), 86400);
  EXPECT_EQ(Str(events[0], "next_run"), "2036-12-01T00:00:00.000Z");
  EXPECT_EQ(Str(events[0], "clamped_to"), "2026-12-01T00:00:00.000Z");
  EXPECT_EQ(Str(events[1], "level"), "warn");
  EXPECT_EQ(Str(events[1], "id"), "scheduler");
  EXPECT_EQ(Str(events[1], "msg"), "leader lease clamped");
  EXPECT_EQ(Str(events[1], "lease"), "scheduler");
  EXPECT_EQ(Str(events[1], "holder"), "host-b-scheduler/h/2");
  EXPECT_EQ(Int(events[1], "token"), 42);
  EXPECT_EQ(Str(events[1], "expires_at"), "2036-12-01T00:00:00.000Z");
  EXPECT_EQ(Str(events[1], "clamped_to"), "2026-12-01T00:00:30.000Z");
  EXPECT_EQ(Int(events[1], "lease_s"), 30);
}

TEST_F(SchedulerReporterTest, RoleSetsTheGaugeAndAnnouncesLeadershipOnce) {
  reporter_.RoleChanged(SchedulerRole::kStandby);
  EXPECT_FALSE(metrics_.SchedulerLeader());
  EXPECT_TRUE(Events().empty());
  reporter_.RoleChanged(SchedulerRole::kLeader);
  reporter_.RoleChanged(SchedulerRole::kLeader);
  EXPECT_TRUE(metrics_.SchedulerLeader());
  std::vector<JsonPtr> e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "msg"), "leadership acquired");
  EXPECT_EQ(Str(e[0], "holder"), "host-a-scheduler/h/1");
  reporter_.LeadershipLost("firing gc");
  reporter_.RoleChanged(SchedulerRole::kStandby);
  EXPECT_FALSE(metrics_.SchedulerLeader());
  e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "msg"), "leadership lost");
  EXPECT_EQ(Str(e[0], "level"), "warn");
  EXPECT_EQ(Str(e[0], "during"), "firing gc");
}

TEST_F(SchedulerReporterTest, OneEventAndTheCountersPerRun) {
  RunReport run;
  run.schedule = "gc";
  run.slot_us = 1796032800LL * kMicros;  // 2026-11-30T10:00:00Z
  run.next_us = run.slot_us + 6 * 3600 * kMicros;
  run.missed = 2;
  run.due = 3;
  run.enqueued = 2;
  run.duration_secs = 0.25;
  reporter_.Ran(run);
  std::vector<JsonPtr> e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "id"), "schedule_gc");
  EXPECT_EQ(Str(e[0], "msg"), "schedule run");
  EXPECT_EQ(Str(e[0], "level"), "info");
  EXPECT_EQ(Str(e[0], "schedule"), "gc");
  EXPECT_EQ(Str(e[0], "result"), "ok");
  EXPECT_EQ(Str(e[0], "slot"), "2026-11-30T10:00:00.000Z");
  EXPECT_EQ(Str(e[0], "next_run"), "2026-11-30T16:00:00.000Z");
  EXPECT_EQ(Int(e[0], "missed"), 2);
  EXPECT_EQ(Int(e[0], "due"), 3);
  EXPECT_EQ(Int(e[0], "enqueued"), 2);
  EXPECT_EQ(json_real_value(json_object_get(e[0].get(), "duration_s")), 0.25);
  EXPECT_EQ(ScheduleRuns(metrics_, "gc", "ok"), 1);
  EXPECT_EQ(ScheduleEnqueued(metrics_, "gc"), 2);

  RunReport failed;
  failed.schedule = "nightly";
  failed.ok = false;
  failed.error = "database error (SQLSTATE 42P01): relation missing";
  reporter_.Ran(failed);
  e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "level"), "error");
  EXPECT_EQ(Str(e[0], "result"), "error");
  EXPECT_EQ(Str(e[0], "error"), failed.error);
  EXPECT_EQ(ScheduleRuns(metrics_, "nightly", "error"), 1);

  RunReport prune;
  prune.schedule = "prune";
  prune.pruned = PruneResult{5, 1, 0, 7, true};
  reporter_.Ran(prune);
  e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Int(e[0], "pruned_jobs"), 5);
  EXPECT_EQ(Int(e[0], "pruned_dead_letters"), 1);
  EXPECT_EQ(Int(e[0], "pruned_gc_candidates"), 7);
  EXPECT_EQ(json_object_get(e[0].get(), "due"), nullptr);
}

TEST_F(SchedulerReporterTest, ADepthSampleSetsEveryKnownKindAndUnknown) {
  auto depth = [](std::string kind, queue::JobState state, int64_t n,
                  std::optional<double> oldest = std::nullopt) {
    queue::Depth d;
    d.kind = std::move(kind);
    d.state = state;
    d.count = n;
    d.oldest_ready_secs = oldest;
    return d;
  };
  using queue::JobState;
  using queue::QueueState;
  reporter_.QueueSampled({depth("gc_sweep", JobState::kPending, 4, 12.5),
                          depth("gc_sweep", JobState::kRunning, 2),
                          depth("snapshot_scrub", JobState::kFailed, 7),
                          depth("junk_a", JobState::kPending, 3, 30),
                          depth("junk_b", JobState::kPending, 5, 99),
                          depth("junk_b", JobState::kFailed, 1)});
  EXPECT_EQ(QueueJobs(metrics_, "gc_sweep", QueueState::kPending), 4);
  EXPECT_EQ(QueueJobs(metrics_, "gc_sweep", QueueState::kRunning), 2);
  EXPECT_EQ(QueueOldestPending(metrics_, "gc_sweep"), 12.5);
  EXPECT_EQ(QueueJobs(metrics_, "snapshot_scrub", QueueState::kFailed), 7);
  EXPECT_EQ(QueueJobs(metrics_, "unknown", QueueState::kPending), 8);
  EXPECT_EQ(QueueJobs(metrics_, "unknown", QueueState::kFailed), 1);
  EXPECT_EQ(QueueOldestPending(metrics_, "unknown"), 99);
  std::string text = metrics_.RenderPrometheus();
  // 3 known kinds and unknown, 3 states each; no producer's kind.
  size_t series = 0;
  for (size_t at = 0;
       (at = text.find("\nawc_queue_jobs{", at)) != std::string::npos; ++at) {
    ++series;
  }
  EXPECT_EQ(series, 12u) << text;
  EXPECT_EQ(text.find("junk_"), std::string::npos);
  EXPECT_NE(text.find("awc_queue_jobs{kind=\"snapshot_validate\",state="
                      "\"pending\"} 0"),
            std::string::npos);

  // The next sample finds the jobs gone: every count falls back to 0.
  reporter_.QueueSampled({});
  EXPECT_EQ(QueueJobs(metrics_, "gc_sweep", QueueState::kPending), 0);
  EXPECT_EQ(QueueOldestPending(metrics_, "gc_sweep"), 0);
  EXPECT_EQ(QueueJobs(metrics_, "unknown", QueueState::kPending), 0);
  EXPECT_TRUE(Events().empty());
}

TEST_F(SchedulerReporterTest, ADepthSampleSetsTheOldestWaitOfEveryPriority) {
  auto pending = [](std::string kind, int priority, double oldest) {
    queue::Depth d;
    d.kind = std::move(kind);
    d.state = queue::JobState::kPending;
    d.count = 1;
    d.oldest_ready_secs = oldest;
    d.priority = priority;
    return d;
  };
  reporter_.QueueSampled({pending("snapshot_validate", 2, 3.5),
                          pending("snapshot_scrub", 2, 9.0),
                          pending("snapshot_scrub", 7, 600),
                          pending("junk", 0, 1.25)});
  EXPECT_EQ(QueuePriorityOldestReady(metrics_, "0"), 1.25);
  EXPECT_EQ(QueuePriorityOldestReady(metrics_, "2"), 9.0);
  EXPECT_EQ(QueuePriorityOldestReady(metrics_, "7"), 600);
  // Every priority is a series, 0 while nothing of it waits.
  std::string text = metrics_.RenderPrometheus();
  for (int p = 0; p < queue::kPriorityCount; ++p) {
    EXPECT_NE(text.find("awc_queue_priority_oldest_ready_seconds{priority=\"" +
                        std::to_string(p) + "\"}"),
              std::string::npos)
        << p << "\n"
        << text;
  }
  EXPECT_EQ(QueuePriorityOldestReady(metrics_, "9"), 0);
  reporter_.QueueSampled({});
  EXPECT_EQ(QueuePriorityOldestReady(metrics_, "7"), 0);
}

// The scrub planner's sample: the four gauges, and a warning for a budget
// too small for the promise and another for a promise already broken.
TEST_F(SchedulerReporterTest, CoverageSetsTheGaugesAndWarnsWhenAtRisk) {
  RunReport run;
  run.schedule = "scrub";
  ScrubCoverage c;
  c.promise_secs = 30 * 86400;
  c.objects = 1000;
  c.verified = 990;
  c.bytes = 2'592'000'000'000;  // 1 MB/s over 30 days
  c.oldest_unverified_secs = 29 * 86400;
  c.required_bytes_per_sec = 1e6;
  c.budget_bytes_per_sec = 2e6;
  run.coverage = c;
  reporter_.Ran(run);
  EXPECT_EQ(Events().size(), 1u);  // the run, nothing to warn about
  using obs::MetricId;
  using obs::testing::Read;
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kScrubVerifiedRatio, {}), 0.99);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kScrubOldestUnverified, {}),
                   29 * 86400);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kScrubRequiredRate, {}), 1e6);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kScrubBudgetRate, {}), 2e6);

  c.budget_bytes_per_sec = 5e5;
  c.oldest_unverified_secs = 31 * 86400;
  run.coverage = c;
  reporter_.Ran(run);
  std::vector<JsonPtr> e = Events();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(Str(e[1], "level"), "warn");
  EXPECT_NE(Str(e[1], "msg").find("scrub budget too small"), std::string::npos);
  EXPECT_NE(Str(e[2], "msg").find("coverage promise broken"),
            std::string::npos);
}

// The horizon's sample: the two gauges at every sample; one warning per
// holder once it has held the horizon for kHorizonWarnSecs, and a note when
// it lets go.
TEST_F(SchedulerReporterTest, AHorizonHeldLongNamesItsHolderOnce) {
  using obs::MetricId;
  using obs::testing::Read;
  queue::Horizon h;
  h.xids = 1200;
  queue::Horizon::Holder pin;
  pin.kind = "session";
  pin.name = "pid 4242 (report)";
  pin.detail = "psql, idle in transaction";
  pin.xids = 1200;
  pin.held_secs = 42;
  h.holder = pin;
  reporter_.HorizonSampled(h);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kDatabaseHorizonXids, {}), 1200);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kDatabaseHorizonHeld, {}), 42);
  EXPECT_TRUE(Events().empty());  // not long yet

  h.holder->held_secs = SchedulerProcessReporter::kHorizonWarnSecs + 1;
  reporter_.HorizonSampled(h);
  h.holder->held_secs = SchedulerProcessReporter::kHorizonWarnSecs + 16;
  reporter_.HorizonSampled(h);  // the same holder: warned already
  std::vector<JsonPtr> e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "level"), "warn");
  EXPECT_EQ(Str(e[0], "holder"),
            "session pid 4242 (report) [psql, idle in transaction] for "
            "5m01s, 1200 transactions behind");

  // A slot has no start time: held 0 s, and no warning of its own.
  queue::Horizon slot;
  slot.xids = 9000;
  slot.holder = queue::Horizon::Holder{"slot", "standby_a", "physical", 9000,
                                       std::nullopt};
  reporter_.HorizonSampled(slot);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kDatabaseHorizonXids, {}), 9000);
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kDatabaseHorizonHeld, {}), 0);
  e = Events();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(Str(e[0], "level"), "info");
  EXPECT_EQ(Str(e[0], "holder"), "session pid 4242 (report)");

  reporter_.HorizonSampled(queue::Horizon{});
  EXPECT_DOUBLE_EQ(Read(metrics_, MetricId::kDatabaseHorizonXids, {}), 0);
  EXPECT_TRUE(Events().empty());
}

}  // namespace
}  // namespace awc::scheduler
