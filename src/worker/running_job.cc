#include "worker/running_job.h"

#include <algorithm>

namespace awc::worker {
namespace {

// Between renewals, how often at most the handler's checkpoints ask
// whether the job is still ours: a cancel stops the handler about this
// long after it committed (docs/queue.md, "Cancelling a running job").
constexpr double kHeldCheckSecs = 1.0;

}  // namespace

RunningJob::RunningJob(const queue::Job& job, const WorkerDeps& deps,
                       Heartbeat* heartbeat)
    : job_(job),
      deps_(deps),
      heartbeat_(heartbeat),
      started_(deps.env->NowMonotonic()),
      last_renew_(deps.env->NowMonotonic()),
      last_asked_(last_renew_) {}

queue::Outcome RunningJob::Run() {
  // The handler's database calls are synchronous, so the session is idle
  // whenever the timer fires.
  double every =
      std::min({LeaseSecs() / 3, deps_.options.beat_min_secs, kHeldCheckSecs});
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
  Status s = StillOurs();
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

Status RunningJob::StillOurs() {
  if (lost_) return LostStatus();
  double now = deps_.env->NowMonotonic();
  bool asked_lately = now - last_asked_ < kHeldCheckSecs;
  bool renew =
      now - last_renew_ >= LeaseSecs() / 3 && !(renew_failed_ && asked_lately);
  if (!renew && asked_lately) return Status::OK();
  if (!deps_.source->connected()) return Status::OK();
  // A lost session answers nothing; the renewal still reports it.
  if (!renew && deps_.source->broken()) return Status::OK();
  last_asked_ = now;
  Result<bool> held =
      renew ? deps_.source->RenewLease(job_) : deps_.source->StillHeld(job_);
  if (!held.ok()) {
    if (renew) {
      renew_failed_ = true;
      deps_.reporter->LeaseRenewalFailed(job_, held.status());
    } else {
      deps_.reporter->JobCheckFailed(job_, held.status());
    }
    return Status::OK();
  }
  if (renew) {
    last_renew_ = deps_.env->NowMonotonic();
    renew_failed_ = false;
  }
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
