#include "scheduler/scheduler.h"

#include <algorithm>
#include <utility>

#include "db/writable.h"
#include "scheduler/leader_lease.h"

namespace awc::scheduler {
namespace {

// The shortest wait of a leader: no state of the table (a schedule that
// stays due without being fired) can spin the loop.
constexpr double kMinWait = 0.05;

}  // namespace

Scheduler::Scheduler(SchedulerDeps deps) : deps_(std::move(deps)) {}

int Scheduler::Run() {
  deps_.reporter->RoleChanged(SchedulerRole::kStandby);
  if (int code = ConnectWritable(); code >= 0) return code;
  Enter(State::kStandby);
  sample_at_ = Now();
  while (!deps_.stop_requested()) {
    int code = MaybeSample();
    if (code < 0) code = state_ == State::kLeading ? Lead() : TryToLead();
    if (code >= 0) return code;
  }
  if (state_ == State::kLeading) {
    Status s = deps_.session->Release();
    if (!s.ok()) deps_.reporter->DatabaseError("release", s);
  }
  Enter(State::kStopped);
  return 0;
}

int Scheduler::ConnectWritable() {
  double backoff = 0;
  for (;;) {
    Status s = deps_.session->Connect();
    if (s.ok()) return -1;
    if (!db::IsReadOnlySession(s)) return Failed("connect", s);
    backoff = backoff == 0 ? kReconnectMinSecs
                           : std::min(kReconnectMaxSecs, backoff * 2);
    deps_.reporter->DatabaseUnavailable(s, backoff);
    deps_.session->Wait(backoff, false, deps_.stop_requested);
    if (deps_.stop_requested()) {
      Enter(State::kStopped);
      return 0;
    }
  }
}

int Scheduler::TryToLead() {
  Result<std::optional<LeaseClamp>> clamped = deps_.session->ClampLease();
  if (!clamped.ok()) return Failed("clamp lease", clamped.status());
  if (*clamped) deps_.reporter->LeaseClamped(**clamped);
  Result<bool> got = deps_.session->Acquire();
  if (!got.ok()) return Failed("acquire", got.status());
  if (*got) {
    renew_at_ = Now() + Third();
    clamp_at_ = Now();
    Enter(State::kLeading);
    return -1;
  }
  deps_.session->Wait(std::max(std::min(Third(), UntilSample()), kMinWait),
                      false, deps_.stop_requested);
  return -1;
}

int Scheduler::Lead() {
  if (int code = MaybeClamp(); code >= 0) return code;
  Result<std::vector<DueSchedule>> due =
      deps_.session->Due(kDueBatch, passed_over_);
  if (!due.ok()) return Failed("due", due.status());
  BetweenBatchesFn checkpoint = [this] { return BetweenBatches(); };
  for (const DueSchedule& d : *due) {
    if (deps_.stop_requested()) return -1;
    Result<std::optional<RunReport>> run = deps_.session->Fire(d, checkpoint);
    if (!run.ok()) {
      if (IsLeadershipLost(run.status())) return Lost("firing " + d.name);
      return Failed("fire " + d.name, run.status());
    }
    if (*run) {
      deps_.reporter->Ran(**run);
    } else {
      passed_over_.push_back(d.name);
    }
    if (int code = MaybeRenew(); code >= 0) return code;
  }
  if (int code = MaybeRenew(); code >= 0) return code;
  if (deps_.stop_requested() || due->size() == kDueBatch) return -1;
  Result<std::optional<double>> next =
      deps_.session->SecondsToNextDue(passed_over_);
  if (!next.ok()) return Failed("next due", next.status());
  double wait = std::min(renew_at_ - Now(), UntilSample());
  if (*next) wait = std::min(wait, **next);
  if (!passed_over_.empty()) wait = std::min(wait, kPassedOverRetrySecs);
  deps_.session->Wait(std::max(wait, kMinWait), true, deps_.stop_requested);
  passed_over_.clear();
  return -1;
}

int Scheduler::MaybeSample() {
  if (Now() < sample_at_) return -1;
  Result<std::vector<queue::Depth>> depth = deps_.session->SampleDepth();
  if (!depth.ok()) return Failed("sample depth", depth.status());
  deps_.reporter->QueueSampled(*depth);
  Result<queue::Horizon> horizon = deps_.session->SampleHorizon();
  if (!horizon.ok()) return Failed("sample horizon", horizon.status());
  deps_.reporter->HorizonSampled(*horizon);
  sample_at_ = Now() + deps_.options.queue_sample_secs;
  return -1;
}

int Scheduler::MaybeClamp() {
  if (Now() < clamp_at_) return -1;
  Result<std::vector<ScheduleClamp>> cut = deps_.session->ClampSchedules();
  if (!cut.ok()) {
    if (IsLeadershipLost(cut.status())) return Lost("clamp");
    return Failed("clamp schedules", cut.status());
  }
  for (const ScheduleClamp& c : *cut) deps_.reporter->ScheduleClamped(c);
  clamp_at_ = Now() + Third();
  return -1;
}

int Scheduler::MaybeRenew() {
  if (Now() < renew_at_) return -1;
  Result<bool> renewed = deps_.session->Renew();
  if (!renewed.ok()) return Failed("renew", renewed.status());
  if (!*renewed) return Lost("renewal");
  renew_at_ = Now() + Third();
  return -1;
}

Result<bool> Scheduler::BetweenBatches() {
  if (deps_.stop_requested()) return false;
  if (Now() < renew_at_) return true;
  AWC_ASSIGN_OR_RETURN(bool renewed, deps_.session->Renew());
  if (!renewed) return LeadershipLost();
  renew_at_ = Now() + Third();
  return true;
}

void Scheduler::Enter(State next) {
  bool was_leading = state_ == State::kLeading;
  state_ = next;
  if (was_leading != (next == State::kLeading)) {
    deps_.reporter->RoleChanged(next == State::kLeading
                                    ? SchedulerRole::kLeader
                                    : SchedulerRole::kStandby);
  }
}

int Scheduler::Lost(const std::string& during) {
  deps_.reporter->LeadershipLost(during);
  Enter(State::kStopped);
  return kExitLeadershipLost;
}

int Scheduler::Failed(const std::string& step, const Status& error) {
  deps_.reporter->DatabaseError(step, error);
  Enter(State::kStopped);
  return kExitFailure;
}

}  // namespace awc::scheduler
