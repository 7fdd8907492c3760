#include "worker/heartbeat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "worker/worker_test_fixture.h"

namespace awc::worker {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using State = fleet::BeatState;

// min 2 s, keepalive 10 s, on a connected fake session and a manual clock.
class HeartbeatTest : public ::testing::Test {
 protected:
  HeartbeatTest()
      : source_(&clock_), beat_(&source_, &reporter_, &clock_, 2, 10) {
    EXPECT_TRUE(source_.Connect().ok());
  }

  queue::Job Job(int64_t id, const char* kind) {
    queue::Job job;
    job.id = id;
    job.kind = kind;
    return job;
  }

  ManualClock clock_;
  FakeJobSource source_;
  FakeReporter reporter_;
  Heartbeat beat_;
};

TEST_F(HeartbeatTest, TheFirstBeatIsAtOnceAndPrunesThenKeepaliveOnly) {
  beat_.Set(State::kIdle, nullptr);
  beat_.Tick();
  EXPECT_DOUBLE_EQ(beat_.SecondsUntilDue(), 10);
  clock_.Advance(9.5);
  beat_.Tick();  // unchanged, keepalive not due
  clock_.Advance(0.5);
  beat_.Tick();
  EXPECT_THAT(source_.beats, ElementsAre("0 idle prune", "10 idle"));
}

TEST_F(HeartbeatTest, ChangesAreWrittenAtMostEveryMinSecondsTheLastOneWins) {
  queue::Job a = Job(1, "a"), b = Job(2, "b");
  beat_.Tick();  // 0: idle
  beat_.Set(State::kBusy, &a);
  beat_.Tick();  // too soon
  clock_.Advance(1);
  beat_.Set(State::kBusy, &b);
  EXPECT_DOUBLE_EQ(beat_.SecondsUntilDue(), 1);
  beat_.Tick();
  clock_.Advance(1);
  beat_.Tick();                 // 2: the state of now
  beat_.Set(State::kBusy, &b);  // no change
  clock_.Advance(2);
  beat_.Tick();
  EXPECT_THAT(source_.beats, ElementsAre("0 idle prune", "2 busy 2 b"));
}

TEST_F(HeartbeatTest, StopIsWrittenAtOnce) {
  beat_.Tick();
  clock_.Advance(0.5);
  beat_.Stop();
  EXPECT_THAT(source_.beats, ElementsAre("0 idle prune", "0.5 stopped"));
}

TEST_F(HeartbeatTest, NothingIsWrittenWithoutASessionAndTheFirstBeatWaits) {
  source_.Disconnect();
  beat_.Tick();
  beat_.Stop();
  EXPECT_THAT(source_.beats, IsEmpty());
  EXPECT_DOUBLE_EQ(beat_.SecondsUntilDue(), 0);
  ASSERT_TRUE(source_.Connect().ok());
  beat_.Tick();
  EXPECT_THAT(source_.beats, ElementsAre("0 stopped prune"));
}

TEST_F(HeartbeatTest, AFailedBeatIsReportedAndTriedAgainMinSecondsLater) {
  source_.FailNext(FakeJobSource::Op::kHeartbeat, 1, false);
  beat_.Tick();
  EXPECT_THAT(reporter_.log, ElementsAre("db error heartbeat"));
  EXPECT_DOUBLE_EQ(beat_.SecondsUntilDue(), 2);
  clock_.Advance(2);
  beat_.Tick();
  // The prune was not done: the next write still prunes.
  EXPECT_THAT(source_.beats,
              ElementsAre("0 idle prune FAILED", "2 idle prune"));
  EXPECT_TRUE(source_.connected());
}

TEST_F(HeartbeatTest, PrunesEveryTenMinutesAndOnEachNewSession) {
  beat_.Tick();
  for (int i = 0; i < 60; ++i) {
    clock_.Advance(10);
    beat_.Tick();
  }
  beat_.Restart();
  beat_.Tick();
  ASSERT_EQ(source_.beats.size(), 62u);
  EXPECT_EQ(source_.beats[0], "0 idle prune");
  EXPECT_EQ(source_.beats[59], "590 idle");
  EXPECT_EQ(source_.beats[60], "600 idle prune");
  EXPECT_EQ(source_.beats[61], "600 idle prune");
}

}  // namespace
}  // namespace awc::worker
