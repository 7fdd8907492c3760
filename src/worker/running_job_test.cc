// RunningJob through the worker loop: between renewals its checkpoints ask
// once a second whether the job is still ours, so a cancel stops the
// handler within about a second (docs/queue.md, "Cancelling a running
// job"); failed renewals and checks are reported and tried again a second
// later. Lease renewal at the checkpoints is in worker_test.cc.
#include "worker/running_job.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/worker_test_fixture.h"

namespace awc::worker {
namespace {

using ::testing::ElementsAre;
using Ctx = handlers::JobContext;
using Op = FakeJobSource::Op;

TEST_F(WorkerTest, ACancelStopsTheHandlerAtItsNextCheckpointWithinASecond) {
  double cancelled_at = -1, stopped_at = -1;
  registry_.Add<Empty>("long", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    // Lease 30 s: no renewal is due in these 5 s; a checkpoint every 0.25 s
    // asks once a second whether the job is still ours.
    for (int i = 1; i <= 20; ++i) {
      clock_.Advance(0.25);
      if (i == 7) {
        source_.Cancel(ctx.job().id);  // a producer cancels it at 1.75 s
        cancelled_at = clock_.NowMonotonic();
      }
      Status s = ctx.Checkpoint();
      if (!s.ok()) {
        EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
        stopped_at = clock_.NowMonotonic();
        return queue::Outcome::Retry(s.message());
      }
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("long");
  RunWorker();
  EXPECT_DOUBLE_EQ(cancelled_at, 1.75);
  EXPECT_DOUBLE_EQ(stopped_at, 2);
  EXPECT_EQ(source_.Count("check 1"), 2);  // at 1 s and at 2 s
  EXPECT_EQ(source_.Count("renew 1"), 0);
  EXPECT_EQ(reporter_.Count("recorded 1 CANCELLED discarded"), 1);
}

TEST_F(WorkerTest, AFailedCheckIsReportedAndTriedAgainASecondLater) {
  registry_.Add<Empty>("long", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    for (int i = 0; i < 12; ++i) {
      clock_.Advance(0.25);
      EXPECT_TRUE(ctx.Checkpoint().ok());  // not an error for the handler
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("long");
  source_.FailNext(Op::kCheck, 1, false);
  RunWorker();
  EXPECT_EQ(source_.Count("check 1 FAILED"), 1);
  EXPECT_EQ(source_.Count("check 1"), 2);  // at 2 s and at 3 s
  EXPECT_EQ(reporter_.Count("check failed 1"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, AFailedRenewalIsTriedAgainASecondLaterNotAtEveryCheckpoint) {
  registry_.Add<Empty>("long", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    clock_.Advance(9.75);
    for (int i = 0; i < 12; ++i) {
      clock_.Advance(0.25);
      EXPECT_TRUE(ctx.Checkpoint().ok());
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("long");
  source_.FailNext(Op::kRenew, 2, false);
  RunWorker();
  // At 10 s and 11 s it fails, at 12 s it works; no check in between.
  std::vector<std::string> asked;
  for (const std::string& line : source_.log) {
    if (line.starts_with("renew") || line.starts_with("check")) {
      asked.push_back(line);
    }
  }
  EXPECT_THAT(asked,
              ElementsAre("renew 1 FAILED", "renew 1 FAILED", "renew 1"));
  EXPECT_EQ(reporter_.Count("renewal failed 1"), 2);
}

TEST_F(WorkerTest, ATimerAsksWhileTheHandlerWaitsOnTheLoop) {
  // Lease 30 s: the timer fires every second of the loop's own clock.
  registry_.Add<Empty>("loop_wait", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    source_.Cancel(ctx.job().id);
    clock_.Advance(1.5);
    for (int i = 0; i < 100 && source_.Count("check 1") == 0; ++i) {
      ev_run(ctx.loop(), EVRUN_ONCE);
    }
    Status s = ctx.Checkpoint();  // known lost: no need to ask again
    return s.ok() ? queue::Outcome::Complete("{}")
                  : queue::Outcome::Retry(s.message());
  });
  source_.Enqueue("loop_wait");
  RunWorker();
  EXPECT_EQ(source_.Count("check 1"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 CANCELLED discarded"), 1);
}

}  // namespace
}  // namespace awc::worker
