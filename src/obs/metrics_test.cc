#include "obs/metrics.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "obs/metrics_test_support.h"
#include "obs/metrics_testing.h"
#include "queue/job.h"

namespace awc::obs {
namespace {

using testing::ApiErrors;
using testing::JobCount;
using testing::JobLag;
using testing::QueueJobs;
using testing::QueueOldestPending;
using testing::ScheduleEnqueued;
using testing::ScheduleRuns;
using testing::TotalJobs;

using testing::HasLine;
using testing::Lines;
using testing::NewMetrics;

int CountPrefix(const std::string& text, const std::string& prefix) {
  int n = 0;
  for (const std::string& l : Lines(text)) n += l.rfind(prefix, 0) == 0;
  return n;
}

// Runs `body` in a forked child that then _exit(0)s.
pid_t ForkChild(const std::function<void()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  return pid;
}

// Waits for `pid`; true if it exited normally with status 0.
bool ExitedCleanly(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool KilledBySigkill(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

TEST(MetricsTest, RendersEveryInstrumentWhenEmpty) {
  Metrics m = NewMetrics();
  std::string text = m.RenderPrometheus();
  for (const char* name : {"awc_background_jobs_total", "awc_api_errors_total",
                           "awc_worker_restarts_total"}) {
    EXPECT_EQ(CountPrefix(text, std::string("# HELP ") + name + " "), 1);
    EXPECT_TRUE(HasLine(text, std::string("# TYPE ") + name + " counter"));
  }
  EXPECT_TRUE(HasLine(text, "# TYPE awc_background_job_lag_seconds gauge"));
  EXPECT_TRUE(HasLine(text, "# TYPE awc_workers_running gauge"));
  EXPECT_TRUE(
      HasLine(text, "# TYPE awc_background_job_duration_seconds histogram"));
  EXPECT_TRUE(HasLine(text, "awc_api_errors_total{component=\"worker\"} 0"));
  EXPECT_TRUE(HasLine(text, "awc_worker_restarts_total 0"));
  EXPECT_TRUE(HasLine(text, "awc_workers_running 0"));
  EXPECT_EQ(CountPrefix(text, "awc_background_job"), 0);
  EXPECT_EQ(text.find("cardinality_overflow"), std::string::npos);
  EXPECT_EQ(TotalJobs(m), 0);
  EXPECT_EQ(JobCount(m, "snapshot_validate", "completed"), 0);
  EXPECT_EQ(JobLag(m, "snapshot_validate"), 0);
}

TEST(MetricsTest, CountsAndRendersExactLines) {
  Metrics m = NewMetrics();
  for (int i = 0; i < 3; ++i) m.CountJob("snapshot_validate", "completed");
  m.CountJob("gc_sweep", "failed");
  m.SetJobLag("snapshot_validate", 7);
  m.SetJobLag("snapshot_validate", 1.25);
  m.SetJobLag("gc_sweep", 1e-7);
  m.CountApiError();
  m.CountApiError();
  m.CountRestart();
  m.SetWorkersRunning(4);

  EXPECT_EQ(JobCount(m, "snapshot_validate", "completed"), 3);
  EXPECT_EQ(JobCount(m, "gc_sweep", "failed"), 1);
  EXPECT_EQ(JobCount(m, "gc_sweep", "completed"), 0);
  EXPECT_EQ(JobLag(m, "snapshot_validate"), 1.25);
  EXPECT_EQ(ApiErrors(m), 2);
  EXPECT_EQ(TotalJobs(m), 4);

  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(text,
                      "awc_background_jobs_total{kind=\"snapshot_validate\","
                      "outcome=\"completed\"} 3"))
      << text;
  EXPECT_TRUE(HasLine(
      text,
      "awc_background_jobs_total{kind=\"gc_sweep\",outcome=\"failed\"} 1"));
  EXPECT_TRUE(HasLine(
      text, "awc_background_job_lag_seconds{kind=\"snapshot_validate\"} 1.25"));
  EXPECT_TRUE(
      HasLine(text, "awc_background_job_lag_seconds{kind=\"gc_sweep\"} 1e-07"));
  EXPECT_TRUE(HasLine(text, "awc_api_errors_total{component=\"worker\"} 2"));
  EXPECT_TRUE(HasLine(text, "awc_worker_restarts_total 1"));
  EXPECT_TRUE(HasLine(text, "awc_workers_running 4"));
  EXPECT_EQ(CountPrefix(text, "awc_background_jobs_total{"), 2);
  EXPECT_EQ(text.back(), '\n');
}

TEST(MetricsTest, QueueDepthGaugesHoldTheLastSample) {
  Metrics m = NewMetrics();
  std::string empty = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(empty, "# TYPE awc_queue_jobs gauge"));
  EXPECT_TRUE(HasLine(empty, "# TYPE awc_queue_oldest_pending_seconds gauge"));
  EXPECT_EQ(CountPrefix(empty, "awc_queue_jobs{"), 0);

  m.SetQueueJobs("gc_sweep", queue::QueueState::kPending, 12);
  m.SetQueueJobs("gc_sweep", queue::QueueState::kFailed, 3);
  m.SetQueueOldestPending("gc_sweep", 42.5);
  m.SetQueueJobs("gc_sweep", queue::QueueState::kPending, 7);  // a later sample
  EXPECT_EQ(QueueJobs(m, "gc_sweep", queue::QueueState::kPending), 7);
  EXPECT_EQ(QueueJobs(m, "gc_sweep", queue::QueueState::kRunning), 0);
  EXPECT_EQ(QueueOldestPending(m, "gc_sweep"), 42.5);
  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(
      HasLine(text, "awc_queue_jobs{kind=\"gc_sweep\",state=\"pending\"} 7"))
      << text;
  EXPECT_TRUE(
      HasLine(text, "awc_queue_jobs{kind=\"gc_sweep\",state=\"failed\"} 3"));
  EXPECT_TRUE(HasLine(
      text, "awc_queue_oldest_pending_seconds{kind=\"gc_sweep\"} 42.5"));
  EXPECT_EQ(CountPrefix(text, "awc_queue_jobs{"), 2);
}

TEST(MetricsTest, SchedulerInstruments) {
  Metrics m = NewMetrics();
  std::string empty = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(empty, "# TYPE awc_scheduler_leader gauge"));
  EXPECT_TRUE(HasLine(empty, "awc_scheduler_leader 0"));
  EXPECT_TRUE(HasLine(empty, "# TYPE awc_schedule_runs_total counter"));
  EXPECT_TRUE(
      HasLine(empty, "# TYPE awc_scheduler_jobs_enqueued_total counter"));
  EXPECT_EQ(CountPrefix(empty, "awc_schedule_runs_total{"), 0);

  m.SetSchedulerLeader(true);
  m.CountScheduleRun("gc", "ok");
  m.CountScheduleRun("gc", "ok");
  m.CountScheduleRun("nightly", "error");
  m.CountScheduleEnqueued("gc", 3);
  m.CountScheduleEnqueued("gc", 0);
  m.CountScheduleEnqueued("prune", 0);
  EXPECT_TRUE(m.SchedulerLeader());
  EXPECT_EQ(ScheduleRuns(m, "gc", "ok"), 2);
  EXPECT_EQ(ScheduleRuns(m, "gc", "error"), 0);
  EXPECT_EQ(ScheduleEnqueued(m, "gc"), 3);
  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(text, "awc_scheduler_leader 1")) << text;
  EXPECT_TRUE(HasLine(
      text, "awc_schedule_runs_total{schedule=\"gc\",result=\"ok\"} 2"));
  EXPECT_TRUE(HasLine(
      text,
      "awc_schedule_runs_total{schedule=\"nightly\",result=\"error\"} 1"));
  EXPECT_TRUE(
      HasLine(text, "awc_scheduler_jobs_enqueued_total{schedule=\"gc\"} 3"));
  // A firing that enqueued nothing still shows its schedule.
  EXPECT_TRUE(
      HasLine(text, "awc_scheduler_jobs_enqueued_total{schedule=\"prune\"} 0"));
  m.SetSchedulerLeader(false);
  EXPECT_FALSE(m.SchedulerLeader());
  EXPECT_TRUE(HasLine(m.RenderPrometheus(), "awc_scheduler_leader 0"));
}

TEST(MetricsTest, HistogramBucketsAreCumulative) {
  Metrics m = NewMetrics();
  for (double s : {0.00390625, 0.125, 0.125, 700.0}) {
    m.ObserveJobDuration("gc_sweep", s);
  }
  std::string text = m.RenderPrometheus();
  const std::string b = "awc_background_job_duration_seconds_bucket{kind=";
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"0.005\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"0.1\"} 1"));
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"0.25\"} 3"));
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"2.5\"} 3"));
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"600\"} 3"));
  EXPECT_TRUE(HasLine(text, b + "\"gc_sweep\",le=\"+Inf\"} 4"));
  EXPECT_EQ(CountPrefix(text, b), 17);
  EXPECT_TRUE(HasLine(text,
                      "awc_background_job_duration_seconds_sum"
                      "{kind=\"gc_sweep\"} 700.25390625"));
  EXPECT_TRUE(HasLine(text,
                      "awc_background_job_duration_seconds_count"
                      "{kind=\"gc_sweep\"} 4"));
}

TEST(MetricsTest, EscapesLabelValues) {
  Metrics m = NewMetrics();
  const std::string odd = "a\"b\\c\nd";
  m.CountJob(odd, "other");
  m.CountJob(odd, "other");
  EXPECT_EQ(JobCount(m, odd, "other"), 2);
  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(
      text,
      R"(awc_background_jobs_total{kind="a\"b\\c\nd",outcome="other"} 2)"))
      << text;
}

TEST(MetricsTest, CapsLabelSetsAt128) {
  Metrics m = NewMetrics();
  for (int i = 0; i < 200; ++i) {
    m.CountJob("kind-" + std::to_string(i), "completed");
  }
  m.CountJob("kind-0", "completed");    // has a slot: stays there
  m.CountJob("kind-199", "completed");  // overflowed: overflows again
  m.SetJobLag("kind-0", 3);             // other instruments keep room

  std::string text = m.RenderPrometheus();
  const std::string prefix = "awc_background_jobs_total{";
  const std::string overflow =
      "awc_background_jobs_total{kind=\"cardinality_overflow\","
      "outcome=\"cardinality_overflow\"} 73";
  EXPECT_EQ(CountPrefix(text, prefix), kMaxLabelSets + 1);
  EXPECT_TRUE(HasLine(text, overflow)) << text;
  EXPECT_TRUE(HasLine(
      text,
      "awc_background_jobs_total{kind=\"kind-0\",outcome=\"completed\"} 2"));
  EXPECT_TRUE(HasLine(
      text,
      "awc_background_jobs_total{kind=\"kind-127\",outcome=\"completed\"} 1"));
  EXPECT_EQ(text.find("kind=\"kind-128\""), std::string::npos);
  EXPECT_EQ(JobCount(m, kOverflowLabel, kOverflowLabel), 73);
  EXPECT_EQ(JobCount(m, "kind-150", "completed"), 0);
  EXPECT_EQ(TotalJobs(m), 202);
  EXPECT_EQ(JobLag(m, "kind-0"), 3);
}

TEST(MetricsTest, OverlongLabelValueOverflows) {
  Metrics m = NewMetrics();
  const std::string longest(kMaxLabelValue, 'k');
  const std::string too_long(kMaxLabelValue + 1, 'k');
  m.CountJob(longest, "completed");
  m.CountJob(too_long, "completed");
  m.SetJobLag(too_long, 2.5);
  EXPECT_EQ(JobCount(m, longest, "completed"), 1);
  EXPECT_EQ(JobCount(m, too_long, "completed"), 0);
  EXPECT_EQ(JobCount(m, kOverflowLabel, kOverflowLabel), 1);
  EXPECT_EQ(JobLag(m, kOverflowLabel), 2.5);
  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(text, "awc_background_jobs_total{kind=\"" + longest +
                                "\",outcome=\"completed\"} 1"));
  EXPECT_TRUE(HasLine(text,
                      "awc_background_job_lag_seconds"
                      "{kind=\"cardinality_overflow\"} 2.5"));
  EXPECT_EQ(text.find(too_long), std::string::npos);
}

TEST(MetricsTest, MovedFromObjectIsInert) {
  Metrics a = NewMetrics();
  a.CountJob("snapshot_scrub", "retried");
  Metrics b(std::move(a));
  a.CountJob("snapshot_scrub", "retried");  // NOLINT: use after move
  EXPECT_EQ(a.RenderPrometheus(), "");      // NOLINT
  b.CountJob("snapshot_scrub", "retried");
  EXPECT_EQ(JobCount(b, "snapshot_scrub", "retried"), 2);
}

TEST(MetricsForkTest, ChildRecordingsSurviveTheChild) {
  Metrics m = NewMetrics();
  pid_t clean = ForkChild([&] {
    m.CountJob("workspace_expire", "completed");
    m.SetJobLag("workspace_expire", 0.5);
    m.CountApiError();
  });
  ASSERT_TRUE(ExitedCleanly(clean));

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t killed = ForkChild([&] {
    m.CountJob("workspace_expire", "completed");
    m.CountJob("snapshot_retain", "cancelled");
    m.ObserveJobDuration("snapshot_retain", 2);
    char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    for (;;) pause();
  });
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  kill(killed, SIGKILL);
  ASSERT_TRUE(KilledBySigkill(killed));

  EXPECT_EQ(JobCount(m, "workspace_expire", "completed"), 2);
  EXPECT_EQ(JobCount(m, "snapshot_retain", "cancelled"), 1);
  EXPECT_EQ(JobLag(m, "workspace_expire"), 0.5);
  EXPECT_EQ(ApiErrors(m), 1);
  EXPECT_TRUE(HasLine(m.RenderPrometheus(),
                      "awc_background_job_duration_seconds_count"
                      "{kind=\"snapshot_retain\"} 1"));
}

TEST(MetricsForkTest, ConcurrentChildrenGiveExactTotals) {
  constexpr int kChildren = 4;
  constexpr int kIters = 20000;
  constexpr int kShared = 20;
  Metrics m = NewMetrics();
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> pids;
  for (int c = 0; c < kChildren; ++c) {
    pids.push_back(ForkChild([&, c] {
      close(start[1]);
      char buf;
      if (read(start[0], &buf, 1) != 0) _exit(1);  // EOF = go
      const std::string own = "child-" + std::to_string(c);
      for (int i = 0; i < kIters; ++i) {
        m.CountJob("shared-" + std::to_string(i % kShared), "completed");
        m.CountJob(own, "failed");
        m.ObserveJobDuration("shared", 0.5);
      }
    }));
  }
  close(start[0]);
  close(start[1]);  // releases every child at once
  for (pid_t pid : pids) ASSERT_TRUE(ExitedCleanly(pid));

  for (int j = 0; j < kShared; ++j) {
    EXPECT_EQ(JobCount(m, "shared-" + std::to_string(j), "completed"),
              kChildren * kIters / kShared);
  }
  for (int c = 0; c < kChildren; ++c) {
    EXPECT_EQ(JobCount(m, "child-" + std::to_string(c), "failed"), kIters);
  }
  EXPECT_EQ(TotalJobs(m), 2.0 * kChildren * kIters);
  std::string text = m.RenderPrometheus();
  // Each label set got exactly one slot despite the racing allocations.
  EXPECT_EQ(CountPrefix(text, "awc_background_jobs_total{"),
            kShared + kChildren);
  const std::string n = std::to_string(kChildren * kIters);
  EXPECT_TRUE(HasLine(
      text, "awc_background_job_duration_seconds_count{kind=\"shared\"} " + n));
  EXPECT_TRUE(HasLine(text,
                      "awc_background_job_duration_seconds_sum"
                      "{kind=\"shared\"} " +
                          std::to_string(kChildren * kIters / 2)));
}

int g_hook_fd = -1;

// Runs with the allocation mutex held: tells the parent, then waits to be
// killed.
void SignalAndHang() {
  char c = 'h';
  if (write(g_hook_fd, &c, 1) != 1) _exit(1);
  for (;;) pause();
}

TEST(MetricsForkTest, DeadAllocatorDoesNotWedgeOthers) {
  Metrics m = NewMetrics();
  m.CountJob("before", "completed");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t holder = ForkChild([&] {
    g_hook_fd = ready[1];
    internal::SetSlotAllocationHookForTest(&SignalAndHang);
    m.CountJob("doomed", "failed");
  });
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);  // the child holds the mutex now
  close(ready[0]);
  kill(holder, SIGKILL);
  ASSERT_TRUE(KilledBySigkill(holder));

  // Allocate in another child under an alarm, so a deadlock fails the test
  // instead of hanging it.
  pid_t after = ForkChild([&] {
    alarm(10);
    for (int i = 0; i < 3; ++i) m.CountJob("after", "completed");
    m.SetJobLag("after", 1);
  });
  ASSERT_TRUE(ExitedCleanly(after));
  m.CountJob("parent", "completed");

  EXPECT_EQ(JobCount(m, "before", "completed"), 1);
  EXPECT_EQ(JobCount(m, "after", "completed"), 3);
  EXPECT_EQ(JobCount(m, "parent", "completed"), 1);
  EXPECT_EQ(JobCount(m, "doomed", "failed"), 0);
  EXPECT_EQ(JobLag(m, "after"), 1);
  std::string text = m.RenderPrometheus();
  EXPECT_EQ(text.find("doomed"), std::string::npos) << text;
  EXPECT_EQ(CountPrefix(text, "awc_background_jobs_total{"), 3);
}

}  // namespace
}  // namespace awc::obs
