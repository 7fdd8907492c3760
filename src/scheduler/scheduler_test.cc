// The scheduler loop against a scripted session and a clock the test moves:
// who leads, when it renews, what ends it, and its exit codes.
#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "scheduler/leader_lease.h"
#include "testing/fault_env.h"

namespace awc::scheduler {
namespace {

std::string Secs(double x) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

class ManualClock : public FaultEnv {
 public:
  ManualClock() : FaultEnv(Env::Default()) {}
  double NowMonotonic() override { return now_; }
  void Advance(double secs) { now_ += secs; }

 private:
  double now_ = 0;
};

// Log lines: "connect", "acquire", "renew", "release", "due", "fire <name>",
// "next", "wait <s>" (a standby's) or "wait~ <s>" (woken by changes too);
// "due" and "next" name the schedules they leave out ("due -held"); with
// `log_clamps`, "clamp lease" and "clamp schedules" too.
// Unscripted calls succeed: acquire false, renew true, nothing to clamp,
// no schedule due, a firing fires (but of the schedules in
// `passed_over`), nothing is due next. Depth samples are written down
// apart, in `samples`, as the clock's time.
class FakeSession : public SchedulerSession {
 public:
  explicit FakeSession(ManualClock* clock) : clock_(clock) {}

  Status connect_status;
  // The answers of the first Connect()s, before connect_status.
  std::deque<Status> connects;
  std::deque<Result<bool>> acquires, renewals;
  bool log_clamps = false;
  std::deque<Result<std::optional<LeaseClamp>>> lease_clamps;
  std::deque<Result<std::vector<ScheduleClamp>>> schedule_clamps;
  std::deque<Result<std::vector<DueSchedule>>> dues;
  std::map<std::string, Status> fire_errors;
  std::set<std::string> passed_over;
  std::optional<double> next_due;
  // Called from Fire() with the firing's checkpoint (a long prune).
  std::function<void(const BetweenBatchesFn&)> during_fire;
  // Called in Wait(), where the loop blocks: the place a test stops it.
  std::function<void()> on_wait;
  std::vector<std::string> log;
  std::vector<double> samples;
  Status sample_status;

  Status Connect() override {
    log.push_back("connect");
    return Next(connects, connect_status);
  }
  Result<bool> Acquire() override {
    log.push_back("acquire");
    return Next(acquires, false);
  }
  Result<bool> Renew() override {
    log.push_back("renew");
    return Next(renewals, true);
  }
  Status Release() override {
    log.push_back("release");
    return Status::OK();
  }
  Result<std::optional<LeaseClamp>> ClampLease() override {
    if (log_clamps) log.push_back("clamp lease");
    return Next(lease_clamps, std::optional<LeaseClamp>());
  }
  Result<std::vector<ScheduleClamp>> ClampSchedules() override {
    if (log_clamps) log.push_back("clamp schedules");
    return Next(schedule_clamps, std::vector<ScheduleClamp>{});
  }
  Result<std::vector<DueSchedule>> Due(
      int, const std::vector<std::string>& left_out) override {
    log.push_back("due" + LeftOut(left_out));
    return Next(dues, std::vector<DueSchedule>{});
  }
  Result<std::optional<RunReport>> Fire(
      const DueSchedule& due, const BetweenBatchesFn& checkpoint) override {
    log.push_back("fire " + due.name);
    if (during_fire) during_fire(checkpoint);
    auto it = fire_errors.find(due.name);
    if (it != fire_errors.end()) return it->second;
    if (passed_over.contains(due.name)) return std::optional<RunReport>();
    RunReport r;
    r.schedule = due.name;
    r.enqueued = 1;
    return std::optional<RunReport>(r);
  }
  Result<std::optional<double>> SecondsToNextDue(
      const std::vector<std::string>& left_out) override {
    log.push_back("next" + LeftOut(left_out));
    return next_due;
  }
  Result<std::vector<queue::Depth>> SampleDepth() override {
    samples.push_back(clock_->NowMonotonic());
    if (!sample_status.ok()) return sample_status;
    queue::Depth d;
    d.kind = "gc_sweep";
    d.count = static_cast<int64_t>(samples.size());
    return std::vector<queue::Depth>{d};
  }
  Result<queue::Horizon> SampleHorizon() override {
    queue::Horizon h;
    h.xids = static_cast<int64_t>(samples.size());
    return h;
  }
  void Wait(double seconds, bool wake_on_change,
            const process::StopFn&) override {
    log.push_back((wake_on_change ? "wait~ " : "wait ") + Secs(seconds));
    clock_->Advance(seconds);
    if (on_wait) on_wait();
  }

 private:
  static std::string LeftOut(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += " -" + n;
    return out;
  }
  template <typename T>
  static T Next(std::deque<T>& q, std::type_identity_t<T> fallback) {
    if (q.empty()) return fallback;
    T v = std::move(q.front());
    q.pop_front();
    return v;
  }
  ManualClock* clock_;
};

class FakeReporter : public SchedulerReporter {
 public:
  std::vector<std::string> lines;
  void RoleChanged(SchedulerRole role) override {
    lines.push_back(role == SchedulerRole::kLeader ? "leader" : "standby");
  }
  void LeadershipLost(const std::string& during) override {
    lines.push_back("lost during " + during);
  }
  void Ran(const RunReport& run) override {
    lines.push_back("ran " + run.schedule);
  }
  void LeaseClamped(const LeaseClamp& clamp) override {
    lines.push_back("lease of " + clamp.holder + " clamped");
  }
  void ScheduleClamped(const ScheduleClamp& clamp) override {
    lines.push_back("schedule " + clamp.schedule + " clamped");
  }
  void DatabaseError(const std::string& step, const Status&) override {
    lines.push_back("db error " + step);
  }
  void DatabaseUnavailable(const Status&, double retry_in_secs) override {
    lines.push_back("db read-only, retry in " + Secs(retry_in_secs));
  }
  // Samples are written down apart: the pending count of their one row.
  void QueueSampled(const std::vector<queue::Depth>& depth) override {
    sampled.push_back(depth.empty() ? -1 : depth[0].count);
  }
  // The horizon is sampled with the depth, right after it.
  void HorizonSampled(const queue::Horizon& horizon) override {
    horizons.push_back(horizon.xids);
  }
  std::vector<int64_t> sampled;
  std::vector<int64_t> horizons;
};

class SchedulerTest : public ::testing::Test {
 protected:
  // Samples every 1e9 s: once at the start, which the tests of the roles
  // leave aside; the sampling tests set their own pace.
  SchedulerTest() : session_(&clock_) {
    options_.lease_secs = 30;
    options_.queue_sample_secs = 1e9;
  }

  int Run() {
    Scheduler s(SchedulerDeps{.options = options_,
                              .session = &session_,
                              .reporter = &reporter_,
                              .env = &clock_,
                              .stop_requested = [this] { return stop_; }});
    return s.Run();
  }
  // Stops the loop at its `n`-th wait.
  void StopAtWait(int n) {
    session_.on_wait = [this, n] {
      if (++waits_ >= n) stop_ = true;
    };
  }
  std::vector<DueSchedule> Due(std::vector<std::string> names) {
    std::vector<DueSchedule> out;
    for (auto& n : names) out.push_back({n, true});
    return out;
  }

  ManualClock clock_;
  SchedulerOptions options_;
  FakeSession session_;
  FakeReporter reporter_;
  bool stop_ = false;
  int waits_ = 0;
};

using Lines = std::vector<std::string>;

TEST_F(SchedulerTest, StandbyTriesToLeadEveryThirdOfTheLease) {
  StopAtWait(2);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log,
            (Lines{"connect", "acquire", "wait 10", "acquire", "wait 10"}));
  EXPECT_EQ(reporter_.lines, (Lines{"standby"}));
}

TEST_F(SchedulerTest, LeaderFiresWhatIsDueRenewsEveryThirdAndReleasesOnStop) {
  session_.acquires = {false, true};
  session_.dues = {Due({"gc", "expire"})};
  session_.next_due = 4;  // sooner than the renewal
  StopAtWait(5);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log,
            (Lines{"connect", "acquire", "wait 10", "acquire",
                   // t=10: leader until t=40, renewal due at t=20
                   "due", "fire gc", "fire expire", "next", "wait~ 4",
                   // t=14
                   "due", "next", "wait~ 4",
                   // t=18: the renewal comes before the next schedule
                   "due", "next", "wait~ 2",
                   // t=20
                   "due", "renew", "next", "wait~ 4", "release"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "leader", "ran gc", "ran expire", "standby"}));
}

TEST_F(SchedulerTest, WaitsForTheRenewalWhenNothingIsDue) {
  session_.acquires = {true};
  session_.next_due = std::nullopt;  // every schedule paused
  StopAtWait(2);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log,
            (Lines{"connect", "acquire", "due", "next", "wait~ 10", "due",
                   "renew", "next", "wait~ 10", "release"}));
}

TEST_F(SchedulerTest, APassedOverScheduleIsLeftOutAndTriedAgainAfterASecond) {
  // "held" stays due, its row locked by another session: its firing passes
  // it over. The loop neither spins on it nor waits for it (the others are
  // due in 5 s), and each look after a wait tries it again.
  session_.acquires = {true};
  session_.dues = {Due({"held", "gc"}), Due({"held"})};
  session_.passed_over = {"held"};
  session_.next_due = 5;
  StopAtWait(3);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log,
            (Lines{"connect", "acquire", "due", "fire held", "fire gc",
                   "next -held", "wait~ 1",
                   // t=1: tried again, still held
                   "due", "fire held", "next -held", "wait~ 1",
                   // t=2: released and fired elsewhere; nothing passed over
                   "due", "next", "wait~ 5", "release"}));
  EXPECT_EQ(reporter_.lines, (Lines{"standby", "leader", "ran gc", "standby"}));
}

TEST_F(SchedulerTest, AStandbyClampsTheLeaseBeforeEachTryToTakeIt) {
  // An expiry years ahead, its holder gone: cut, said, then taken over
  // once the cut lease has run out.
  session_.log_clamps = true;
  LeaseClamp clamp;
  clamp.holder = "gone";
  session_.lease_clamps = {std::optional<LeaseClamp>(clamp)};
  session_.acquires = {false, true};
  StopAtWait(2);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log,
            (Lines{"connect", "clamp lease", "acquire", "wait 10",
                   "clamp lease", "acquire",
                   // leading: the schedules first
                   "clamp schedules", "due", "next", "wait~ 10", "release"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "lease of gone clamped", "leader", "standby"}));
}

TEST_F(SchedulerTest, TheLeaderClampsSchedulesWhenItLeadsAndEveryThirdAfter) {
  session_.log_clamps = true;
  session_.acquires = {true};
  ScheduleClamp far;
  far.schedule = "far";
  session_.schedule_clamps = {std::vector<ScheduleClamp>{far}};
  session_.next_due = 4;
  StopAtWait(4);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(
      session_.log,
      (Lines{"connect", "clamp lease", "acquire", "clamp schedules", "due",
             "next", "wait~ 4",
             // t=4, t=8: not yet
             "due", "next", "wait~ 4", "due", "next", "wait~ 2",
             // t=10: a third of the lease since the last look
             "clamp schedules", "due", "renew", "next", "wait~ 4", "release"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "leader", "schedule far clamped", "standby"}));
}

TEST_F(SchedulerTest, AFencedClampEndsLeadershipAndADatabaseErrorTheProcess) {
  session_.acquires = {true};
  session_.schedule_clamps = {LeadershipLost()};
  EXPECT_EQ(Run(), kExitLeadershipLost);
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "leader", "lost during clamp", "standby"}));

  FakeReporter again;
  FakeSession session(&clock_);
  session.lease_clamps = {Status::Transient("lock timeout")};
  Scheduler s(SchedulerDeps{.options = options_,
                            .session = &session,
                            .reporter = &again,
                            .env = &clock_,
                            .stop_requested = [] { return false; }});
  EXPECT_EQ(s.Run(), kExitFailure);
  EXPECT_EQ(again.lines, (Lines{"standby", "db error clamp lease"}));
  EXPECT_EQ(session.log, (Lines{"connect"}));
}

TEST_F(SchedulerTest, AFencedFiringEndsLeadershipWithItsOwnExitCode) {
  session_.acquires = {true};
  session_.dues = {Due({"gc", "expire"})};
  session_.fire_errors["gc"] = LeadershipLost();
  EXPECT_EQ(Run(), kExitLeadershipLost);
  // Nothing after the refused firing, no release of a lease not ours.
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire", "due", "fire gc"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "leader", "lost during firing gc", "standby"}));
}

TEST_F(SchedulerTest, ARenewalThatFindsTheTokenMovedEndsLeadership) {
  session_.acquires = {true};
  session_.renewals = {false};
  EXPECT_EQ(Run(), kExitLeadershipLost);
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire", "due", "next",
                                 "wait~ 10", "due", "renew"}));
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "leader", "lost during renewal", "standby"}));
}

TEST_F(SchedulerTest, AfterAStallItFiresBeforeItRenews) {
  // Paused past its lease (SIGSTOP): its first act is a firing, which the
  // fence refuses once someone took over; it never renews first.
  session_.acquires = {true};
  session_.dues = {Due({}), Due({"tick"})};
  session_.fire_errors["tick"] = LeadershipLost();
  session_.on_wait = [this] { clock_.Advance(100); };
  EXPECT_EQ(Run(), kExitLeadershipLost);
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire", "due", "next",
                                 "wait~ 10", "due", "fire tick"}));
}

TEST_F(SchedulerTest, LongFiringsRenewBetweenBatchesAndStopEarly) {
  session_.acquires = {true};
  session_.dues = {Due({"prune"})};
  std::vector<std::string> checks;
  session_.during_fire = [&](const BetweenBatchesFn& checkpoint) {
    clock_.Advance(4);
    checks.push_back(Secs(*checkpoint()));  // no renewal yet
    clock_.Advance(8);
    checks.push_back(Secs(*checkpoint()));  // t=12: renews
    stop_ = true;
    checks.push_back(Secs(*checkpoint()));  // asked to stop
  };
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(checks, (Lines{"1", "1", "0"}));
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire", "due", "fire prune",
                                 "renew", "release"}));
}

TEST_F(SchedulerTest, ALostLeaseBetweenBatchesIsLeadershipLost) {
  session_.acquires = {true};
  session_.dues = {Due({"prune"})};
  session_.renewals = {false};
  session_.during_fire = [&](const BetweenBatchesFn& checkpoint) {
    clock_.Advance(11);
    Result<bool> r = checkpoint();
    EXPECT_TRUE(IsLeadershipLost(r.status())) << r.status().ToString();
    session_.fire_errors["prune"] = r.status();  // what the firing returns
  };
  EXPECT_EQ(Run(), kExitLeadershipLost);
  EXPECT_EQ(reporter_.lines.back(), "standby");
}

TEST_F(SchedulerTest, DatabaseErrorsExitForTheMastersBackoff) {
  session_.connect_status = Status::Transient("database connection failed");
  EXPECT_EQ(Run(), kExitFailure);
  EXPECT_EQ(reporter_.lines, (Lines{"standby", "db error connect"}));

  FakeReporter again;
  FakeSession session(&clock_);
  session.acquires = {true};
  session.dues = {Status::Transient("database connection lost")};
  Scheduler s(SchedulerDeps{.options = options_,
                            .session = &session,
                            .reporter = &again,
                            .env = &clock_,
                            .stop_requested = [] { return false; }});
  EXPECT_EQ(s.Run(), kExitFailure);
  EXPECT_EQ(again.lines,
            (Lines{"standby", "leader", "db error due", "standby"}));
  // The lease is left to expire: the session is gone.
  EXPECT_EQ(session.log, (Lines{"connect", "acquire", "due"}));
}

// A session that cannot write is on the wrong server: the scheduler waits
// and connects again, with backoff, and takes part once one can write;
// it does not exit for the master's crash-loop backoff.
TEST_F(SchedulerTest, AReadOnlySessionIsTriedAgainWithBackoff) {
  Status read_only = Status::Transient(
      "database session is read-only: the server is a standby (in "
      "recovery)");
  session_.connects = {read_only, read_only, read_only};
  session_.acquires = {true};
  StopAtWait(4);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(reporter_.lines,
            (Lines{"standby", "db read-only, retry in 0.25",
                   "db read-only, retry in 0.5", "db read-only, retry in 1",
                   "leader", "standby"}));
  EXPECT_EQ(session_.log, (Lines{"connect", "wait 0.25", "connect", "wait 0.5",
                                 "connect", "wait 1", "connect", "acquire",
                                 "due", "next", "wait~ 10", "release"}));
}

TEST_F(SchedulerTest, AStopEndsTheWaitForAWritableSession) {
  session_.connect_status = Status::Transient(
      "database session is read-only: default_transaction_read_only is on");
  StopAtWait(1);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.log, (Lines{"connect", "wait 0.25"}));
}

TEST_F(SchedulerTest, AStandbySamplesTheQueueAtItsPaceBetweenItsTries) {
  options_.queue_sample_secs = 15;
  StopAtWait(5);
  EXPECT_EQ(Run(), 0);
  // Sampled at the start, then every 15 s: the standby's waits end in time.
  EXPECT_EQ(session_.samples, (std::vector<double>{0, 15, 30}));
  EXPECT_EQ(reporter_.sampled, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(reporter_.horizons, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(session_.log, (Lines{"connect", "acquire", "wait 10", "acquire",
                                 "wait 5", "acquire", "wait 10", "acquire",
                                 "wait 5", "acquire", "wait 10"}));
}

TEST_F(SchedulerTest, ALeaderSamplesTooAndItsWaitsEndForTheNextSample) {
  options_.queue_sample_secs = 6;
  session_.acquires = {true};
  StopAtWait(4);
  EXPECT_EQ(Run(), 0);
  EXPECT_EQ(session_.samples, (std::vector<double>{0, 6, 12}));
  EXPECT_EQ(session_.log,
            (Lines{"connect", "acquire", "due", "next", "wait~ 6",
                   // t=6: sampled
                   "due", "next", "wait~ 4",
                   // t=10: the renewal; the next sample is at t=12
                   "due", "renew", "next", "wait~ 2",
                   // t=12: sampled; the renewal is at t=20
                   "due", "next", "wait~ 6", "release"}));
}

TEST_F(SchedulerTest, AFailedSampleIsADatabaseErrorThatEndsTheProcess) {
  session_.sample_status = Status::Transient("connection lost");
  EXPECT_EQ(Run(), kExitFailure);
  EXPECT_EQ(session_.log, (Lines{"connect"}));
  EXPECT_EQ(reporter_.lines, (Lines{"standby", "db error sample depth"}));
}

}  // namespace
}  // namespace awc::scheduler
