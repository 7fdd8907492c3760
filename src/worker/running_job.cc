#include "worker/running_job.h"

#include <algorithm>

namespace awc::worker {

RunningJob::RunningJob(const queue::Job& job, const WorkerDeps& deps,
                       Heartbeat* heartbeat)
    : job_(job),
      deps_(deps),
      heartbeat_(heartbeat),
      started_(deps.env->NowMonotonic()),
      last_renew_(deps.env->NowMonotonic()) {}

queue::Outcome RunningJob::Run() {
  // The handler's database calls are synchronous, so the session is idle
  // whenever the timer fires.
  double every = std::min(LeaseSecs() / 3, deps_.options.beat_min_secs);
  ev_timer renew;
  ev_timer_init(&renew, OnRenewTimer, every, every);
  renew.data = this;
  ev_timer_start(deps_.loop, &renew);
  // Whatever the handler commits, it commits while the job is ours.
  deps_.source->FenceTransactions(&job_);
  queue::Outcome outcome = deps_.registry->Dispatch(*this);
  deps_.source->FenceTransactions(nullptr);
  ev_timer_stop(deps_.loop, &renew);
  return outcome;
}

void RunningJob::OnRenewTimer(struct ev_loop*, ev_timer* w, int) {
  (void)static_cast<RunningJob*>(w->data)->Checkpoint();
}

double RunningJob::LeaseEnd() const { return last_renew_ + LeaseSecs(); }

Status RunningJob::Checkpoint() {
  Status s = MaybeRenew();
  heartbeat_->Tick();
  return s;
}

void RunningJob::Progress(const obs::JobProgress& progress) {
  double now = deps_.env->NowMonotonic();
  double elapsed = now - started_;
  heartbeat_->SetProgress(obs::ProgressJson(progress, elapsed));
  // The title at most once a second: setproctitle rewrites the argv area.
  if (last_progress_ >= 0 && now - last_progress_ < 1) return;
  last_progress_ = now;
  deps_.reporter->JobProgress(job_, obs::ProgressLine(progress, elapsed));
}

Status RunningJob::Pace(uint64_t bytes, uint64_t objects) {
  if (deps_.read_budget == nullptr) return Status::OK();
  // The lease renewed and the heartbeat written while the budget holds the
  // job back.
  return process::PaceReads(*deps_.read_budget,
                            deps_.handler_options->read_budget, bytes, objects,
                            *deps_.env, [this] { return Checkpoint(); });
}

Status RunningJob::MaybeRenew() {
  if (lost_) return LostStatus();
  if (deps_.env->NowMonotonic() - last_renew_ < LeaseSecs() / 3) {
    return Status::OK();
  }
  if (!deps_.source->connected()) return Status::OK();
  Result<bool> held = deps_.source->RenewLease(job_);
  if (!held.ok()) {
    deps_.reporter->LeaseRenewalFailed(job_, held.status());
    return Status::OK();
  }
  last_renew_ = deps_.env->NowMonotonic();
  if (!*held) {
    lost_ = true;
    return LostStatus();
  }
  return Status::OK();
}

Status RunningJob::LostStatus() {
  return Status::FailedPrecondition(
      "job is no longer held by this worker (cancelled or reclaimed)");
}

}  // namespace awc::worker
