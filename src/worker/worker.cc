#include "worker/worker.h"

#include <algorithm>
#include <utility>

#include "worker/running_job.h"

namespace awc::worker {
namespace {

constexpr double kReconnectMin = 0.25;
constexpr double kReconnectMax = 15.0;
constexpr double kRecordRetryMin = 0.1;
constexpr double kRecordRetryMax = 5.0;
constexpr int kReclaimBatch = 100;

// The heartbeat state of a loop state; kConnecting writes nothing (there is
// no session yet).
fleet::BeatState BeatStateOf(WorkerState state) {
  switch (state) {
    case WorkerState::kBusy:
      return fleet::BeatState::kBusy;
    case WorkerState::kStopping:
      return fleet::BeatState::kStopped;
    case WorkerState::kConnecting:
    case WorkerState::kIdle:
      break;
  }
  return fleet::BeatState::kIdle;
}

}  // namespace

Worker::Worker(WorkerDeps deps)
    : deps_(std::move(deps)),
      heartbeat_(deps_.source, deps_.reporter, deps_.env,
                 deps_.options.beat_min_secs,
                 deps_.options.beat_keepalive_secs) {}

void Worker::Run() {
  Enter(WorkerState::kConnecting);
  while (state_ != WorkerState::kStopping) {
    if (state_ == WorkerState::kBusy) {
      StepBusy();
    } else {
      StepWithoutJob();
    }
  }
}

void Worker::Enter(WorkerState state) {
  state_ = state;
  const queue::Job* job = state == WorkerState::kBusy ? &*job_ : nullptr;
  deps_.reporter->StateChanged(state, job);
  if (state == WorkerState::kConnecting) return;
  if (state == WorkerState::kStopping) {
    heartbeat_.Stop();
    return;
  }
  heartbeat_.Set(BeatStateOf(state), job);
  heartbeat_.Tick();
}

void Worker::StepWithoutJob() {
  if (deps_.stop_requested()) {
    Enter(WorkerState::kStopping);
    return;
  }
  if (!EnsureConnected()) {
    deps_.source->Pause(reconnect_backoff_, &deps_.stop_requested);
    return;
  }
  if (state_ == WorkerState::kConnecting) Enter(WorkerState::kIdle);
  std::optional<queue::Finished> claimed =
      RecordAndClaim(nullptr, true, nullptr);
  if (!claimed) {
    // A session that survived the error waits a poll interval before the
    // next attempt; a lost one is replaced at once.
    if (deps_.source->connected()) {
      deps_.source->Pause(PollSecs(), &deps_.stop_requested);
    }
    return;
  }
  if (claimed->next) {
    job_ = std::move(claimed->next);
    Enter(WorkerState::kBusy);
    return;
  }
  if (deps_.stop_requested()) return;
  heartbeat_.Tick();
  // Woken for the next heartbeat if it is due before the poll interval.
  double wait = std::min(PollSecs(), heartbeat_.SecondsUntilDue());
  Status s = deps_.source->WaitForWork(wait, deps_.stop_requested);
  if (!s.ok()) OnDatabaseError(s, "listen");
}

void Worker::StepBusy() {
  const queue::Job& job = *job_;
  double started = Now();
  queue::Outcome outcome;
  double lease_end;
  {
    RunningJob running(job, deps_, &heartbeat_);
    outcome = running.Run();
    lease_end = running.LeaseEnd();
  }
  double duration = Now() - started;
  std::optional<queue::Finished> finished = Record({job, outcome}, lease_end);
  std::optional<queue::Job> next;
  if (finished) {
    deps_.reporter->JobRecorded(job, finished->recorded, duration);
    next = std::move(finished->next);
  } else {
    KeepPlaceFor(std::nullopt);  // the outcome was given up
  }
  job_ = std::move(next);
  Enter(job_ ? WorkerState::kBusy : WorkerState::kIdle);
}

bool Worker::EnsureConnected() {
  if (deps_.source->connected()) return true;
  Status s = deps_.source->Connect();
  if (!s.ok()) {
    reconnect_backoff_ = reconnect_backoff_ == 0
                             ? kReconnectMin
                             : std::min(kReconnectMax, reconnect_backoff_ * 2);
    deps_.reporter->DatabaseUnavailable(s, reconnect_backoff_);
    return false;
  }
  deps_.reporter->DatabaseConnected(reconnect_backoff_ > 0);
  reconnect_backoff_ = 0;
  heartbeat_.Restart();
  return true;
}

void Worker::OnDatabaseError(const Status& error, std::string_view step) {
  bool lost = deps_.source->broken();
  deps_.reporter->DatabaseError(step, error, lost);
  if (lost) deps_.source->Disconnect();
}

void Worker::ReleaseOrphans() {
  if (deps_.orphans == nullptr || !deps_.orphans->HasOrphans()) return;
  for (int n = 0; n < deps_.orphans->size(); ++n) {
    std::optional<obs::OrphanedJob> orphan = deps_.orphans->TakeOrphan(n);
    if (!orphan) continue;
    Result<std::optional<queue::Reclaimed>> released =
        deps_.source->ReleaseOrphan(
            orphan->job_id, orphan->lease_token,
            "its worker died running it (slot " + std::to_string(n + 1) + ")");
    if (!released.ok()) {
      deps_.orphans->PutBackOrphan(*orphan);
      OnDatabaseError(released.status(), "release");
      return;
    }
    if (*released) deps_.reporter->JobReclaimed(**released);
  }
}

void Worker::MaybeReclaim() {
  double now = Now();
  if (now < next_reclaim_) return;
  next_reclaim_ = now + std::clamp(PollSecs(), 0.25, 10.0);
  Result<std::vector<queue::Reclaimed>> reclaimed = deps_.source->Reclaim(
      kReclaimBatch, deps_.options.heartbeat_timeout_secs);
  if (!reclaimed.ok()) {
    OnDatabaseError(reclaimed.status(), "reclaim");
    return;
  }
  for (const queue::Reclaimed& job : *reclaimed) {
    deps_.reporter->JobReclaimed(job);
  }
}

std::optional<queue::Finished> Worker::RecordAndClaim(const Done* done,
                                                      bool may_claim,
                                                      Status* error) {
  ReleaseOrphans();
  if (!deps_.source->connected()) return std::nullopt;
  MaybeReclaim();
  // Lost during the reclaim (and reported there): the caller reconnects.
  if (!deps_.source->connected()) return std::nullopt;
  // The stop check right before the claim, so that a stop arriving during
  // the round trips above prevents it.
  bool claim = may_claim && !deps_.stop_requested();
  if (claim) AdmitBackground();
  Result<queue::Finished> finished = queue::Finished{};
  if (done != nullptr) {
    finished = deps_.source->Finish(done->job, done->outcome, claim);
  } else if (claim) {
    Result<std::optional<queue::Job>> next = deps_.source->Claim();
    if (next.ok()) {
      finished->next = std::move(*next);
    } else {
      finished = next.status();
    }
  }
  if (!finished.ok()) {
    OnDatabaseError(finished.status(),
                    done != nullptr ? kRecordStep : kClaimStep);
    if (error != nullptr) *error = finished.status();
    return std::nullopt;
  }
  KeepPlaceFor(finished->next);
  return std::move(*finished);
}

void Worker::AdmitBackground() {
  if (deps_.places == nullptr || deps_.background_kinds.empty()) return;
  bool place = deps_.places->TakeBackgroundPlace(deps_.slot);
  deps_.source->ExcludeKinds(place ? std::vector<std::string>()
                                   : deps_.background_kinds);
}

void Worker::KeepPlaceFor(const std::optional<queue::Job>& job) {
  if (deps_.places == nullptr) return;
  const std::vector<std::string>& kinds = deps_.background_kinds;
  if (job && std::find(kinds.begin(), kinds.end(), job->kind) != kinds.end()) {
    return;
  }
  deps_.places->ReleaseBackgroundPlace(deps_.slot);
}

std::optional<queue::Finished> Worker::Record(const Done& done,
                                              double lease_end) {
  double backoff = kRecordRetryMin;
  bool may_claim = true;
  queue::Outcome dead_letter;
  Done instead{done.job, dead_letter};
  const Done* recording = &done;
  for (;;) {
    if (EnsureConnected()) {
      Status error;
      std::optional<queue::Finished> finished =
          RecordAndClaim(recording, may_claim, &error);
      if (finished) return finished;
      if (error.IsInvalidArgument()) {
        // The database refused the statement for its values: the same
        // statement would fail for ever. Try without the claim of the next
        // job (it may be what was refused), then record a dead letter with
        // the reason instead of the outcome, then give up at once.
        if (may_claim) {
          may_claim = false;
        } else if (recording == &done) {
          dead_letter = queue::Outcome::Fail(
              "the outcome could not be recorded: " + error.message());
          recording = &instead;
        } else {
          deps_.reporter->OutcomeNotRecorded(done.job);
          return std::nullopt;
        }
        continue;
      }
    }
    double left = lease_end - Now();
    if (left <= 0) {
      deps_.reporter->OutcomeNotRecorded(done.job);
      return std::nullopt;
    }
    // Not interruptible: a stop must not abandon the outcome.
    deps_.source->Pause(std::min(backoff, left), nullptr);
    backoff = std::min(backoff * 2, kRecordRetryMax);
  }
}

}  // namespace awc::worker
