// The fixture of the worker loop tests: a clock the test moves, a scripted
// job source (an in-memory queue with fencing, injectable failures and lost
// sessions) and a reporter that writes down what it is told, both as lines
// of text the tests compare.
#ifndef AWC_WORKER_WORKER_TEST_FIXTURE_H_
#define AWC_WORKER_WORKER_TEST_FIXTURE_H_

#include <ev.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "store/memory_store.h"
#include "testing/fault_env.h"
#include "worker/worker.h"

namespace awc::worker {

// "%g" of `x`: 0.25, 1.5, 3.
inline std::string Secs(double x) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// An Env whose monotonic clock moves only when the test (or a fake wait)
// says so; nothing else of it is used here.
class ManualClock : public FaultEnv {
 public:
  ManualClock() : FaultEnv(Env::Default()) {}
  double NowMonotonic() override { return now_; }
  void Advance(double secs) { now_ += secs; }

 private:
  double now_ = 0;
};

// awc.jobs in memory. Log lines: "connect", "claim", "finish <id> next"
// (claim_next) or "finish <id> last", "renew <id>", "check <id>",
// "reclaim", "wait <s>",
// "pause <s>" (interruptible) or "pause! <s>" (not); a failed call gets
// " FAILED". Waits move the clock by their full length. Heartbeats are
// written down apart, in `beats`: "<t> idle", "<t> busy <id> <kind>",
// "<t> stopped", " prune" added when pruning, " FAILED" when failed.
class FakeJobSource : public JobSource {
 public:
  enum class Op {
    kConnect,
    kClaim,
    kFinish,
    kRenew,
    kCheck,
    kReclaim,
    kWaitForWork,
    kHeartbeat
  };

  explicit FakeJobSource(ManualClock* clock) : clock_(clock) {}

  // Adds a ready job; returns its id.
  int64_t Enqueue(std::string kind, int max_attempts = 5) {
    queue::Job job;
    job.id = next_id_++;
    job.kind = std::move(kind);
    job.payload = "{}";
    job.max_attempts = max_attempts;
    ready.push_back(job);
    return job.id;
  }
  // From now on, renewing, checking or recording `id` finds it no longer
  // ours, as after a producer cancelled it.
  void Cancel(int64_t id) { cancelled_.insert(id); }
  // The next `times` calls of `op` fail; with `lose_session` the session is
  // gone too (broken() until the worker disconnects and connects again).
  void FailNext(Op op, int times, bool lose_session) {
    failures_[op] = {times, lose_session, false};
  }
  // The next `times` calls of `op` are refused for their values
  // (kInvalidArgument, as for a data exception): the session stays fine.
  void RefuseNext(Op op, int times) { failures_[op] = {times, false, true}; }

  std::deque<queue::Job> ready;
  std::vector<std::string> excluded;      // as the loop last set it
  std::vector<queue::Reclaimed> expired;  // what the next reclaim returns
  std::vector<std::string> log;
  // FenceTransactions calls: the job id, or 0 when the fence was lifted.
  std::vector<int64_t> fences;
  std::vector<std::string> beats;
  std::vector<queue::Outcome> outcomes;  // as Finish() received them
  std::vector<double> uninterruptible_pauses;
  // Called after each logged call with its log line.
  std::function<void(const std::string&)> after_call;
  // Called in WaitForWork() and interruptible pauses, where the loop would
  // block for real: the place a test stops the worker.
  std::function<void()> on_wait;

  int Count(const std::string& line) const {
    int n = 0;
    for (const std::string& l : log) n += l == line ? 1 : 0;
    return n;
  }

  Status Connect() override {
    if (Status s = Call(Op::kConnect, "connect"); !s.ok()) return s;
    connected_ = true;
    broken_ = false;
    return Status::OK();
  }
  bool connected() const override { return connected_; }
  bool broken() const override { return connected_ && broken_; }
  void Disconnect() override { connected_ = broken_ = false; }
  db::PgConn& db() override {
    ADD_FAILURE() << "the loop tests' handlers use no database session";
    std::abort();
  }

  void ExcludeKinds(const std::vector<std::string>& kinds) override {
    excluded = kinds;
  }
  Result<std::optional<queue::Job>> Claim() override {
    AWC_RETURN_IF_ERROR(Call(Op::kClaim, "claim"));
    return TakeReady();
  }
  Result<queue::Finished> Finish(const queue::Job& job,
                                 const queue::Outcome& outcome,
                                 bool claim_next) override {
    std::string line =
        "finish " + std::to_string(job.id) + (claim_next ? " next" : " last");
    AWC_RETURN_IF_ERROR(Call(Op::kFinish, line));
    outcomes.push_back(outcome);
    queue::Finished out;
    out.recorded = RecordOutcome(job, outcome);
    if (claim_next) out.next = TakeReady();
    return out;
  }
  void FenceTransactions(const queue::Job* job) override {
    fences.push_back(job ? job->id : 0);
  }
  Result<bool> RenewLease(const queue::Job& job) override {
    AWC_RETURN_IF_ERROR(Call(Op::kRenew, "renew " + std::to_string(job.id)));
    return cancelled_.count(job.id) == 0;
  }
  Result<bool> StillHeld(const queue::Job& job) override {
    AWC_RETURN_IF_ERROR(Call(Op::kCheck, "check " + std::to_string(job.id)));
    return cancelled_.count(job.id) == 0;
  }
  Result<std::vector<queue::Reclaimed>> Reclaim(int, int64_t) override {
    AWC_RETURN_IF_ERROR(Call(Op::kReclaim, "reclaim"));
    std::vector<queue::Reclaimed> out;
    out.swap(expired);
    return out;
  }
  Result<std::optional<queue::Reclaimed>> ReleaseOrphan(
      int64_t job_id, int64_t, const std::string&) override {
    AWC_RETURN_IF_ERROR(
        Call(Op::kReclaim, "release " + std::to_string(job_id)));
    return std::optional<queue::Reclaimed>();
  }
  Status Heartbeat(const Beat& beat) override {
    std::string line =
        Secs(clock_->NowMonotonic()) + " " + fleet::BeatStateName(beat.state);
    if (beat.job_id != 0) {
      line += " " + std::to_string(beat.job_id) + " " + beat.job_kind;
    }
    if (beat.prune) line += " prune";
    Status s;
    Failure& f = failures_[Op::kHeartbeat];
    if (!connected_ || broken_) {
      s = Status::Transient("no connection to the server");
    } else if (f.times > 0) {
      --f.times;
      s = Status::Transient("deadlock detected (SQLSTATE 40P01)");
    }
    beats.push_back(s.ok() ? line : line + " FAILED");
    return s;
  }
  Status WaitForWork(double seconds, const process::StopFn&) override {
    AWC_RETURN_IF_ERROR(Call(Op::kWaitForWork, "wait " + Secs(seconds)));
    clock_->Advance(seconds);
    if (on_wait) on_wait();
    return Status::OK();
  }
  void Pause(double seconds, const process::StopFn* stop) override {
    log.push_back((stop != nullptr ? "pause " : "pause! ") + Secs(seconds));
    if (stop == nullptr) uninterruptible_pauses.push_back(seconds);
    clock_->Advance(seconds);
    if (stop != nullptr && on_wait) on_wait();
  }

 private:
  struct Failure {
    int times = 0;
    bool lose_session = false;
    bool refused = false;
  };

  // Logs `line`; fails when scripted or when the session is gone.
  Status Call(Op op, std::string line) {
    Status s;
    Failure& f = failures_[op];
    if (op != Op::kConnect && (!connected_ || broken_)) {
      s = Status::Transient("no connection to the server");
    } else if (f.times > 0) {
      --f.times;
      if (op == Op::kConnect) {
        s = Status::Transient("could not connect: Connection refused");
      } else if (f.refused) {
        s = Status::InvalidArgument(
            "database refused the values (SQLSTATE 22P05): unsupported "
            "Unicode escape sequence");
      } else if (f.lose_session) {
        s = Status::Transient("server closed the connection unexpectedly");
        broken_ = true;
      } else {
        s = Status::Transient("deadlock detected (SQLSTATE 40P01)");
      }
    }
    log.push_back(s.ok() ? line : line + " FAILED");
    if (after_call) after_call(log.back());
    return s;
  }

  // The first ready job of a kind not excluded.
  std::optional<queue::Job> TakeReady() {
    auto it = std::find_if(ready.begin(), ready.end(), [&](const auto& j) {
      return std::find(excluded.begin(), excluded.end(), j.kind) ==
             excluded.end();
    });
    if (it == ready.end()) return std::nullopt;
    queue::Job job = *it;
    ready.erase(it);
    job.attempts += 1;
    job.lease_token = next_token_++;
    job.run_at = clock_->NowMonotonic();
    return job;
  }

  // The fenced UPDATE: applied only while the job is ours.
  queue::Recorded RecordOutcome(const queue::Job& job,
                                const queue::Outcome& outcome) {
    queue::Recorded rec;
    rec.attempts = job.attempts;
    rec.lag_secs = clock_->NowMonotonic() - job.run_at;
    if (cancelled_.count(job.id) > 0) {
      rec.state = queue::JobState::kCancelled;
      return rec;
    }
    rec.applied = true;
    switch (outcome.kind) {
      case queue::Outcome::Kind::kComplete:
        rec.state = queue::JobState::kCompleted;
        break;
      case queue::Outcome::Kind::kRetry:
        rec.state = job.attempts >= job.max_attempts
                        ? queue::JobState::kFailed
                        : queue::JobState::kPending;
        if (rec.state == queue::JobState::kFailed) {
          rec.dead_reason = queue::DeadReason::kAttemptsExhausted;
        }
        break;
      case queue::Outcome::Kind::kFail:
        rec.state = queue::JobState::kFailed;
        rec.dead_reason = outcome.reason;
        break;
      case queue::Outcome::Kind::kDefer:
        rec.state = queue::JobState::kPending;
        rec.attempts -= 1;
        break;
    }
    return rec;
  }

  ManualClock* clock_;
  bool connected_ = false;
  bool broken_ = false;
  int64_t next_id_ = 1;
  int64_t next_token_ = 100;
  std::set<int64_t> cancelled_;
  std::map<Op, Failure> failures_;
};

// Writes down each report as a line: "state idle", "state busy <id>",
// "connected", "reconnected", "unavailable <retry_in>", "db error <step>"
// (+ " lost"), "renewal failed <id>", "check failed <id>", "recorded <id>
// <STATE>" (+ " discarded"), "reclaimed <id> <STATE>", "not recorded
// <id>".
class FakeReporter : public Reporter {
 public:
  std::vector<std::string> log;

  int Count(const std::string& line) const {
    int n = 0;
    for (const std::string& l : log) n += l == line ? 1 : 0;
    return n;
  }
  // The "state ..." lines alone.
  std::vector<std::string> States() const {
    std::vector<std::string> out;
    for (const std::string& l : log) {
      if (l.rfind("state ", 0) == 0) out.push_back(l);
    }
    return out;
  }

  void StateChanged(WorkerState state, const queue::Job* job) override {
    std::string line = std::string("state ") + WorkerStateName(state);
    if (job != nullptr) line += " " + std::to_string(job->id);
    log.push_back(line);
  }
  void DatabaseConnected(bool after_failures) override {
    log.push_back(after_failures ? "reconnected" : "connected");
  }
  void DatabaseUnavailable(const Status&, double retry_in_secs) override {
    log.push_back("unavailable " + Secs(retry_in_secs));
  }
  void DatabaseError(std::string_view step, const Status&,
                     bool connection_lost) override {
    log.push_back("db error " + std::string(step) +
                  (connection_lost ? " lost" : ""));
  }
  void LeaseRenewalFailed(const queue::Job& job, const Status&) override {
    log.push_back("renewal failed " + std::to_string(job.id));
  }
  void JobCheckFailed(const queue::Job& job, const Status&) override {
    log.push_back("check failed " + std::to_string(job.id));
  }
  void JobRecorded(const queue::Job& job, const queue::Recorded& rec,
                   double) override {
    log.push_back("recorded " + std::to_string(job.id) + " " +
                  queue::JobStateName(rec.state) +
                  (rec.applied ? "" : " discarded"));
  }
  void JobReclaimed(const queue::Reclaimed& job) override {
    log.push_back("reclaimed " + std::to_string(job.id) + " " +
                  queue::JobStateName(job.state));
  }
  void OutcomeNotRecorded(const queue::Job& job) override {
    log.push_back("not recorded " + std::to_string(job.id));
  }
};

struct Empty {};

inline Result<Empty> DecodeEmpty(const json_t*) { return Empty{}; }

// A worker over the fakes, a memory store and an event loop of its own;
// lease 30 s, poll interval 250 ms, heartbeats only when the session starts
// and stops (the heartbeat tests set their pace). By default the worker is
// stopped the first time it would wait with nothing left to claim.
class WorkerTest : public ::testing::Test {
 protected:
  // Beyond this many source calls the loop is taken to be running away.
  static constexpr size_t kMaxCalls = 1000;

  WorkerTest()
      : loop_(ev_loop_new(EVFLAG_AUTO)),
        store_(store::NewMemoryStore()),
        source_(&clock_) {
    options_.id_base = "t";
    options_.lease_secs = 30;
    options_.poll_interval_ms = 250;
    options_.beat_min_secs = 1e9;
    options_.beat_keepalive_secs = 1e9;
    source_.on_wait = [this] {
      if (source_.ready.empty()) stop_ = true;
    };
    registry_.Add<Empty>("complete", DecodeEmpty,
                         [](handlers::JobContext&, const Empty&) {
                           return queue::Outcome::Complete("{}");
                         });
  }
  ~WorkerTest() override { ev_loop_destroy(loop_); }

  // Runs a worker until it stops.
  void RunWorker() {
    WorkerDeps deps{
        .options = options_,
        .source = &source_,
        .reporter = &reporter_,
        .registry = &registry_,
        .store = store_.get(),
        .loop = loop_,
        .handler_options = &handler_options_,
        .metrics = &metrics_,
        .env = &clock_,
        .stop_requested =
            [this] { return stop_ || source_.log.size() > kMaxCalls; },
        .orphans = orphans_,
        .places = places_,
        .slot = 0,
        .background_kinds = background_kinds_};
    Worker worker(deps);
    worker.Run();
    EXPECT_EQ(worker.state(), WorkerState::kStopping);
    EXPECT_LE(source_.log.size(), kMaxCalls) << "the loop ran away";
  }

  ManualClock clock_;
  struct ev_loop* loop_;
  std::unique_ptr<store::ObjectStore> store_;
  FakeJobSource source_;
  FakeReporter reporter_;
  handlers::Registry registry_;
  handlers::HandlerOptions handler_options_;
  obs::Metrics metrics_ = std::move(obs::Metrics::CreateShared().value());
  WorkerOptions options_;
  bool stop_ = false;
  obs::WorkerStatusTable* orphans_ = nullptr;  // none unless a test sets it
  // The host's background places (none unless a test sets them); the
  // worker under test is slot 0.
  obs::WorkerStatusTable* places_ = nullptr;
  std::vector<std::string> background_kinds_;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_WORKER_TEST_FIXTURE_H_
