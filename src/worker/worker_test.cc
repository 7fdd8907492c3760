#include "worker/worker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "worker/worker_test_fixture.h"

namespace awc::worker {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Ctx = handlers::JobContext;
using Op = FakeJobSource::Op;

TEST_F(WorkerTest, RecordsEachOutcomeAndClaimsTheNextJobInTheSameCommit) {
  source_.Enqueue("complete");
  source_.Enqueue("complete");
  RunWorker();
  // One claim on its own; job 2 comes with job 1's outcome. Nothing ready
  // after job 2: a claim, then a wait of the poll interval.
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 1 next",
                          "finish 2 next", "claim", "wait 0.25"));
  EXPECT_THAT(
      reporter_.log,
      ElementsAre("state connecting", "connected", "state idle", "state busy 1",
                  "recorded 1 COMPLETED", "state busy 2",
                  "recorded 2 COMPLETED", "state idle", "state stopping"));
}

// A worker that finds the host's background places taken claims only the
// other kinds; once a place is free it takes it for a background job, and
// gives it back when nothing of that kind is in flight.
TEST_F(WorkerTest, WithoutABackgroundPlaceBackgroundKindsAreLeftAlone) {
  Result<obs::WorkerStatusTable> table =
      obs::WorkerStatusTable::CreateShared(2);
  ASSERT_TRUE(table.ok());
  table->SetBackgroundLimit(1);
  ASSERT_TRUE(table->TakeBackgroundPlace(1));  // another worker's scrub
  places_ = &*table;
  background_kinds_ = {"scrub"};
  bool held_while_running = false;
  registry_.Add<Empty>(
      "scrub", DecodeEmpty, [&](handlers::JobContext&, const Empty&) {
        held_while_running = table->slot(0).background_place.load();
        return queue::Outcome::Complete("{}");
      });
  source_.Enqueue("scrub");     // 1: the oldest
  source_.Enqueue("complete");  // 2
  int waits = 0;
  source_.on_wait = [&] {
    if (++waits == 1) {
      EXPECT_EQ(source_.ready.size(), 1u);  // the scrub, left alone
      table->ReleaseBackgroundPlace(1);     // the other scrub ended
    } else if (source_.ready.empty()) {
      stop_ = true;
    }
  };
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 2 next",
                          "claim", "wait 0.25", "reclaim", "claim",
                          "finish 1 next", "claim", "wait 0.25"));
  EXPECT_TRUE(held_while_running);
  EXPECT_EQ(table->BackgroundPlacesInUse(), 0);
  EXPECT_TRUE(source_.excluded.empty());
}

// The jobs of this host's dead workers go back to the queue before the
// next claim, each once.
TEST_F(WorkerTest, OrphansOfDeadWorkersAreHandedBackBeforeTheClaim) {
  Result<obs::WorkerStatusTable> table =
      obs::WorkerStatusTable::CreateShared(3);
  ASSERT_TRUE(table.ok());
  table->SetJob(2, 42, 9001);
  table->OrphanJob(2);
  orphans_ = &*table;
  source_.Enqueue("complete");
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "release 42", "reclaim", "claim",
                          "finish 1 next", "claim", "wait 0.25"));
  EXPECT_FALSE(table->TakeOrphan(2).has_value());
}

TEST_F(WorkerTest, HandlersRunFencedByTheirJobsLease) {
  std::vector<int64_t> during;
  registry_.Add<Empty>("look", DecodeEmpty, [&](Ctx&, const Empty&) {
    during = source_.fences;
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("look");
  source_.Enqueue("look");
  RunWorker();
  // Each handler's transactions are fenced by its own job's lease; the
  // fence is lifted when it returns, before its outcome is recorded.
  EXPECT_THAT(during, ElementsAre(1, 0, 2));
  EXPECT_THAT(source_.fences, ElementsAre(1, 0, 2, 0));
}

TEST_F(WorkerTest, AStopWhileAJobRunsFinishesAndRecordsItAndClaimsNoMore) {
  registry_.Add<Empty>("stopped_meanwhile", DecodeEmpty,
                       [this](Ctx&, const Empty&) {
                         stop_ = true;  // SIGTERM while the handler runs
                         return queue::Outcome::Complete("{}");
                       });
  source_.Enqueue("stopped_meanwhile");
  source_.Enqueue("complete");
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 1 last"));
  EXPECT_EQ(source_.ready.size(), 1u);
  EXPECT_THAT(reporter_.States(),
              ElementsAre("state connecting", "state idle", "state busy 1",
                          "state idle", "state stopping"));
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, AJobClaimedWithTheOutcomeRunsEvenIfAStopArrivesMeanwhile) {
  for (int i = 0; i < 3; ++i) source_.Enqueue("complete");
  source_.after_call = [this](const std::string& line) {
    if (line == "finish 1 next") stop_ = true;
  };
  RunWorker();
  EXPECT_THAT(source_.log, ElementsAre("connect", "reclaim", "claim",
                                       "finish 1 next", "finish 2 last"));
  EXPECT_EQ(reporter_.Count("recorded 2 COMPLETED"), 1);
  EXPECT_EQ(source_.ready.size(), 1u);
}

TEST_F(WorkerTest, AStopArrivingJustBeforeTheClaimPreventsIt) {
  source_.Enqueue("complete");
  source_.after_call = [this](const std::string& line) {
    if (line == "reclaim") stop_ = true;
  };
  RunWorker();
  EXPECT_THAT(source_.log, ElementsAre("connect", "reclaim"));
  EXPECT_EQ(source_.ready.size(), 1u);
  EXPECT_THAT(reporter_.States(),
              ElementsAre("state connecting", "state idle", "state stopping"));
}

TEST_F(WorkerTest, AStopBeforeTheStartClaimsNothing) {
  source_.Enqueue("complete");
  stop_ = true;
  RunWorker();
  EXPECT_THAT(source_.log, IsEmpty());
  EXPECT_THAT(reporter_.log, ElementsAre("state connecting", "state stopping"));
}

TEST_F(WorkerTest, CheckpointsRenewTheLeaseOnceAThirdOfItHasPassed) {
  std::vector<int> renewals;
  std::vector<Status> checkpoints;
  registry_.Add<Empty>("checkpoints", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    // Lease 30 s: a renewal is due 10 s after the claim or the last one.
    for (double step : {0.0, 9.5, 0.5, 5.0, 5.0}) {
      clock_.Advance(step);
      checkpoints.push_back(ctx.Checkpoint());
      renewals.push_back(source_.Count("renew 1"));
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("checkpoints");
  RunWorker();
  EXPECT_THAT(renewals, ElementsAre(0, 0, 1, 1, 2));
  for (const Status& s : checkpoints) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, ATimerRenewsTheLeaseWhileTheHandlerWaitsOnTheLoop) {
  options_.lease_secs = 1;  // the timer fires every 1/3 s
  registry_.Add<Empty>("loop_wait", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    clock_.Advance(0.5);
    // Waits on the event loop, as an S3 transfer does, with no checkpoint
    // of its own; the bound ends the wait if no timer is running.
    for (int i = 0; i < 100 && source_.Count("renew 1") == 0; ++i) {
      ev_run(ctx.loop(), EVRUN_ONCE);
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("loop_wait");
  RunWorker();
  EXPECT_EQ(source_.Count("renew 1"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, AJobNoLongerOursFailsTheCheckpointAndItsOutcomeIsDiscarded) {
  Status checkpoint;
  registry_.Add<Empty>("cancelled", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    source_.Cancel(ctx.job().id);  // a producer cancels it meanwhile
    clock_.Advance(10);
    checkpoint = ctx.Checkpoint();
    // Known lost, later checkpoints fail at once without asking again.
    for (int i = 0; i < 3; ++i) {
      Status again = ctx.Checkpoint();
      if (!again.IsFailedPrecondition()) checkpoint = again;
    }
    return checkpoint.ok() ? queue::Outcome::Complete("{}")
                           : queue::Outcome::Retry("stopped");
  });
  source_.Enqueue("cancelled");
  RunWorker();
  EXPECT_TRUE(checkpoint.IsFailedPrecondition()) << checkpoint.ToString();
  EXPECT_EQ(source_.Count("renew 1"), 1);
  // The outcome still goes to the fenced UPDATE, which discards it and
  // tells the row's state.
  EXPECT_EQ(source_.Count("finish 1 next"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 CANCELLED discarded"), 1);
}

TEST_F(WorkerTest, AFailedRenewalIsReportedAndTheSessionReplacedAfterTheJob) {
  Status checkpoint = Status::Internal("not called");
  registry_.Add<Empty>("renew_lost", DecodeEmpty, [&](Ctx& ctx, const Empty&) {
    clock_.Advance(10);
    checkpoint = ctx.Checkpoint();
    // The handler may still hold the session: it is not dropped under it.
    EXPECT_TRUE(source_.connected());
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("renew_lost");
  source_.FailNext(Op::kRenew, 1, /*lose_session=*/true);
  RunWorker();
  EXPECT_TRUE(checkpoint.ok()) << checkpoint.ToString();
  EXPECT_EQ(reporter_.Count("renewal failed 1"), 1);
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "renew 1 FAILED",
                          "reclaim FAILED", "pause! 0.1", "connect",
                          "finish 1 next", "claim", "wait 0.25"));
  EXPECT_EQ(reporter_.Count("db error reclaim lost"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, ConnectingAtStartBacksOffUpTo15Seconds) {
  source_.Enqueue("complete");
  source_.FailNext(Op::kConnect, 8, false);
  RunWorker();
  EXPECT_THAT(
      reporter_.log,
      ElementsAre("state connecting", "unavailable 0.25", "unavailable 0.5",
                  "unavailable 1", "unavailable 2", "unavailable 4",
                  "unavailable 8", "unavailable 15", "unavailable 15",
                  "reconnected", "state idle", "state busy 1",
                  "recorded 1 COMPLETED", "state idle", "state stopping"));
  EXPECT_EQ(source_.Count("pause 15"), 2);
  EXPECT_EQ(source_.Count("connect FAILED"), 8);
}

TEST_F(WorkerTest, ASessionLostDuringAClaimIsReplacedWithBackoff) {
  source_.Enqueue("complete");
  source_.FailNext(Op::kClaim, 1, /*lose_session=*/true);
  source_.after_call = [this](const std::string& line) {
    if (line == "claim FAILED") source_.FailNext(Op::kConnect, 3, false);
  };
  RunWorker();
  EXPECT_THAT(
      source_.log,
      ElementsAre("connect", "reclaim", "claim FAILED", "connect FAILED",
                  "pause 0.25", "connect FAILED", "pause 0.5", "connect FAILED",
                  "pause 1", "connect", "reclaim", "claim", "finish 1 next",
                  "claim", "wait 0.25"));
  // A worker that had a session stays idle while it reconnects.
  EXPECT_THAT(
      reporter_.log,
      ElementsAre("state connecting", "connected", "state idle",
                  "db error claim lost", "unavailable 0.25", "unavailable 0.5",
                  "unavailable 1", "reconnected", "state busy 1",
                  "recorded 1 COMPLETED", "state idle", "state stopping"));
}

TEST_F(WorkerTest, AClaimErrorOnAWorkingSessionIsRetriedAfterThePollInterval) {
  source_.Enqueue("complete");
  source_.FailNext(Op::kClaim, 1, /*lose_session=*/false);
  RunWorker();
  EXPECT_THAT(source_.log, ElementsAre("connect", "reclaim", "claim FAILED",
                                       "pause 0.25", "reclaim", "claim",
                                       "finish 1 next", "claim", "wait 0.25"));
  EXPECT_EQ(reporter_.Count("db error claim"), 1);
}

TEST_F(WorkerTest, AnOutcomeIsRecordedOnANewSessionAndAStopDoesNotAbandonIt) {
  source_.Enqueue("complete");
  source_.Enqueue("complete");
  source_.FailNext(Op::kFinish, 1, /*lose_session=*/true);
  source_.after_call = [this](const std::string& line) {
    if (line == "finish 1 next FAILED") {
      stop_ = true;
      source_.FailNext(Op::kConnect, 2, false);
    }
  };
  RunWorker();
  // The retries are not cut short by the stop; the stop only keeps the
  // recording from claiming.
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 1 next FAILED",
                          "pause! 0.1", "connect FAILED", "pause! 0.2",
                          "connect FAILED", "pause! 0.4", "connect", "reclaim",
                          "finish 1 last"));
  ASSERT_EQ(source_.outcomes.size(), 1u);
  EXPECT_EQ(source_.outcomes[0].kind, queue::Outcome::Kind::kComplete);
  EXPECT_THAT(
      reporter_.log,
      ElementsAre("state connecting", "connected", "state idle", "state busy 1",
                  "db error record lost", "unavailable 0.25", "unavailable 0.5",
                  "reconnected", "recorded 1 COMPLETED", "state idle",
                  "state stopping"));
}

TEST_F(WorkerTest, AnOutcomeIsRetriedUntilTheLeaseEndsThenGivenUp) {
  options_.lease_secs = 3;
  source_.Enqueue("complete");
  source_.FailNext(Op::kFinish, 1, /*lose_session=*/true);
  source_.after_call = [this](const std::string& line) {
    if (line == "finish 1 next FAILED") {
      source_.FailNext(Op::kConnect, 1000, false);
    }
  };
  RunWorker();
  // Backoff from 0.1 s, doubling, the last wait cut to the end of the lease.
  const std::vector<double>& waits = source_.uninterruptible_pauses;
  ASSERT_GE(waits.size(), 5u);
  EXPECT_THAT(std::vector<double>(waits.begin(), waits.begin() + 5),
              ElementsAre(DoubleNear(0.1, 1e-9), DoubleNear(0.2, 1e-9),
                          DoubleNear(0.4, 1e-9), DoubleNear(0.8, 1e-9),
                          DoubleNear(1.5, 1e-9)));
  EXPECT_NEAR(std::accumulate(waits.begin(), waits.end(), 0.0), 3.0, 1e-9);
  EXPECT_TRUE(source_.outcomes.empty());
  EXPECT_EQ(reporter_.Count("not recorded 1"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 0);
  EXPECT_THAT(reporter_.States(),
              ElementsAre("state connecting", "state idle", "state busy 1",
                          "state idle", "state stopping"));
}

TEST_F(WorkerTest, ARefusedCommitIsTriedAgainWithoutTheClaim) {
  // The database refused the statement's values: retrying it as it was
  // cannot help. Without the claim of the next job, which may be what it
  // refused, the outcome is recorded as it is.
  source_.Enqueue("complete");
  source_.RefuseNext(Op::kFinish, 1);
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 1 next FAILED",
                          "finish 1 last", "claim", "wait 0.25"));
  ASSERT_EQ(source_.outcomes.size(), 1u);
  EXPECT_EQ(source_.outcomes[0].kind, queue::Outcome::Kind::kComplete);
  EXPECT_THAT(source_.uninterruptible_pauses, IsEmpty());
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
}

TEST_F(WorkerTest, AnOutcomeTheDatabaseRefusesBecomesADeadLetter) {
  // E.g. a result jsonb cannot hold: the job is dead-lettered with the
  // reason at once, instead of being retried until its lease ends, and the
  // worker goes on.
  source_.Enqueue("complete");
  source_.Enqueue("complete");
  source_.RefuseNext(Op::kFinish, 2);
  RunWorker();
  EXPECT_THAT(source_.uninterruptible_pauses, IsEmpty());
  ASSERT_EQ(source_.outcomes.size(), 2u);
  EXPECT_EQ(source_.outcomes[0].kind, queue::Outcome::Kind::kFail);
  EXPECT_EQ(source_.outcomes[0].error,
            "the outcome could not be recorded: database refused the values "
            "(SQLSTATE 22P05): unsupported Unicode escape sequence");
  EXPECT_EQ(reporter_.Count("recorded 1 FAILED"), 1);
  EXPECT_EQ(source_.outcomes[1].kind, queue::Outcome::Kind::kComplete);
  EXPECT_EQ(reporter_.Count("recorded 2 COMPLETED"), 1);
}

TEST_F(WorkerTest, AJobTheDatabaseRefusesToRecordAtAllIsGivenUpAtOnce) {
  source_.Enqueue("complete");
  source_.RefuseNext(Op::kFinish, 3);
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "finish 1 next FAILED",
                          "finish 1 last FAILED", "finish 1 last FAILED",
                          "claim", "wait 0.25"));
  EXPECT_THAT(source_.uninterruptible_pauses, IsEmpty());
  EXPECT_TRUE(source_.outcomes.empty());
  EXPECT_EQ(reporter_.Count("not recorded 1"), 1);
}

TEST_F(WorkerTest, AnExceptionFromAHandlerIsARetryWithoutItsText) {
  registry_.Add<Empty>("throws", DecodeEmpty,
                       [](Ctx&, const Empty&) -> queue::Outcome {
                         throw std::runtime_error("payload data s3cret");
                       });
  source_.Enqueue("throws");
  RunWorker();
  ASSERT_EQ(source_.outcomes.size(), 1u);
  EXPECT_EQ(source_.outcomes[0].kind, queue::Outcome::Kind::kRetry);
  EXPECT_EQ(source_.outcomes[0].error, handlers::kHandlerRaised);
  EXPECT_EQ(reporter_.Count("recorded 1 PENDING"), 1);
}

TEST_F(WorkerTest, ExpiredLeasesAreReclaimedBeforeACommitAtMostOncePerPoll) {
  registry_.Add<Empty>("slow", DecodeEmpty, [this](Ctx&, const Empty&) {
    clock_.Advance(0.25);
    return queue::Outcome::Complete("{}");
  });
  source_.expired.push_back({7, "complete", queue::JobState::kFailed, 5, 2});
  source_.Enqueue("complete");
  source_.Enqueue("slow");
  source_.Enqueue("complete");
  RunWorker();
  EXPECT_THAT(
      source_.log,
      ElementsAre("connect", "reclaim", "claim", "finish 1 next", "reclaim",
                  "finish 2 next", "finish 3 next", "claim", "wait 0.25"));
  EXPECT_EQ(reporter_.Count("reclaimed 7 FAILED"), 1);
}

TEST_F(WorkerTest, AFailedWaitForWorkIsReportedAndTheLoopGoesOn) {
  source_.FailNext(Op::kWaitForWork, 1, /*lose_session=*/true);
  RunWorker();
  EXPECT_THAT(source_.log,
              ElementsAre("connect", "reclaim", "claim", "wait 0.25 FAILED",
                          "connect", "claim", "wait 0.25"));
  EXPECT_EQ(reporter_.Count("db error listen lost"), 1);
}

TEST_F(WorkerTest, TheHeartbeatFollowsTheStateAndALongJobShowsWhileItRuns) {
  options_.beat_min_secs = 2;
  options_.beat_keepalive_secs = 10;
  registry_.Add<Empty>("long", DecodeEmpty, [this](Ctx& ctx, const Empty&) {
    for (int i = 0; i < 5; ++i) {
      clock_.Advance(1);
      EXPECT_TRUE(ctx.Checkpoint().ok());
    }
    return queue::Outcome::Complete("{}");
  });
  source_.Enqueue("complete");
  source_.Enqueue("long");
  RunWorker();
  // Job 1 ran and job 2 started at 0, too soon after the first beat; job 2
  // shows at its checkpoint at 2 s (not again at 4 s: nothing changed);
  // idle when it ends at 5 s; stopped after the last wait.
  EXPECT_THAT(source_.beats, ElementsAre("0 idle prune", "2 busy 2 long",
                                         "5 idle", "5.25 stopped"));
}

TEST_F(WorkerTest, AnIdleWorkerWakesForItsKeepaliveBeat) {
  options_.poll_interval_ms = 60000;
  options_.beat_min_secs = 2;
  options_.beat_keepalive_secs = 10;
  int waits = 0;
  source_.on_wait = [&] { stop_ = ++waits == 2; };
  RunWorker();
  EXPECT_THAT(source_.log, ElementsAre("connect", "reclaim", "claim", "wait 10",
                                       "reclaim", "claim", "wait 10"));
  EXPECT_THAT(source_.beats,
              ElementsAre("0 idle prune", "10 idle", "20 stopped"));
}

TEST_F(WorkerTest, AFailedHeartbeatIsReportedAndTheWorkerGoesOn) {
  source_.FailNext(Op::kHeartbeat, 1, false);
  source_.Enqueue("complete");
  RunWorker();
  EXPECT_EQ(reporter_.Count("db error heartbeat"), 1);
  EXPECT_EQ(reporter_.Count("recorded 1 COMPLETED"), 1);
  EXPECT_THAT(source_.beats,
              ElementsAre("0 idle prune FAILED", "0.25 stopped prune"));
}

TEST_F(WorkerTest, DeadLettersCarryTheirReason) {
  source_.Enqueue("no_such_kind");
  RunWorker();
  ASSERT_EQ(source_.outcomes.size(), 1u);
  EXPECT_EQ(source_.outcomes[0].kind, queue::Outcome::Kind::kFail);
  EXPECT_EQ(source_.outcomes[0].reason, queue::DeadReason::kUnknownKind);
}

}  // namespace
}  // namespace awc::worker
