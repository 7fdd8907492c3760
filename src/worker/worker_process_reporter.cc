#include "worker/worker_process_reporter.h"

#include <bsd/unistd.h>

#include <atomic>
#include <string>

#include "db/writable.h"
#include "obs/log.h"
#include "worker/job_event.h"

namespace awc::worker {
namespace {

// A job kind as shown in the process title: printable, bounded.
std::string TitleSafe(std::string_view kind) {
  std::string out;
  for (char c : kind.substr(0, 48)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    out += ok ? c : '?';
  }
  return out;
}

obs::WorkerPhase PhaseOf(WorkerState state) {
  switch (state) {
    case WorkerState::kConnecting:
      return obs::WorkerPhase::kConnecting;
    case WorkerState::kIdle:
      return obs::WorkerPhase::kIdle;
    case WorkerState::kBusy:
      return obs::WorkerPhase::kBusy;
    case WorkerState::kStopping:
      break;
  }
  return obs::WorkerPhase::kStopping;
}

// awc_api_errors_total{component="worker"} counts the transient errors of
// the claim and record steps; every other failed round trip of a worker
// counts in awc_worker_other_database_errors_total (docs/observability.md,
// "Metrics").
bool IsApiError(std::string_view step, const Status& error) {
  return (step == kClaimStep || step == kRecordStep) && error.IsTransient();
}

}  // namespace

WorkerProcessReporter::WorkerProcessReporter(obs::Metrics* metrics,
                                             obs::WorkerStatusTable* status,
                                             int slot,
                                             const handlers::Registry* registry)
    : metrics_(metrics), status_(status), slot_(slot), registry_(registry) {}

std::string_view WorkerProcessReporter::KindLabel(
    const std::string& kind) const {
  return registry_->Has(kind) ? std::string_view(kind) : "unknown";
}

void WorkerProcessReporter::StateChanged(WorkerState state,
                                         const queue::Job* job) {
  status_->SetPhase(slot_, PhaseOf(state));
  status_->SetJob(slot_, job != nullptr ? job->id : 0,
                  job != nullptr ? job->lease_token : 0);
  std::string what = job != nullptr ? "job " + std::to_string(job->id) + " " +
                                          TitleSafe(job->kind)
                                    : WorkerStateName(state);
  setproctitle("-awc-worker: worker %d %s", slot_ + 1, what.c_str());
}

void WorkerProcessReporter::JobProgress(const queue::Job& job,
                                        const std::string& line) {
  setproctitle("-awc-worker: worker %d job %lld %s %s", slot_ + 1,
               static_cast<long long>(job.id), TitleSafe(job.kind).c_str(),
               line.c_str());
}

void WorkerProcessReporter::SetDbOk(bool ok) {
  status_->slot(slot_).db_ok.store(ok, std::memory_order_relaxed);
}

void WorkerProcessReporter::SetReadOnly(bool read_only) {
  status_->slot(slot_).db_read_only.store(read_only, std::memory_order_relaxed);
}

void WorkerProcessReporter::DatabaseConnected(bool after_failures) {
  if (after_failures) obs::Info("worker", "database reconnected").Emit();
  SetDbOk(true);
  SetReadOnly(false);
}

void WorkerProcessReporter::DatabaseUnavailable(const Status& error,
                                                double retry_in_secs) {
  obs::Warn("worker", "database unavailable")
      .Str("error", error.message())
      .Num("retry_in_s", retry_in_secs)
      .Emit();
  SetDbOk(false);
  SetReadOnly(db::IsReadOnlySession(error));
}

void WorkerProcessReporter::DatabaseError(std::string_view step,
                                          const Status& error,
                                          bool connection_lost) {
  if (IsApiError(step, error)) {
    metrics_->CountApiError();
  } else {
    metrics_->CountOtherDatabaseError();
  }
  if (connection_lost) {
    obs::Warn("worker", "database connection lost")
        .Str("error", error.message())
        .Emit();
    SetDbOk(false);
    SetReadOnly(db::IsReadOnlySession(error));
    return;
  }
  obs::Warn("worker", "database error")
      .Str("step", step)
      .Str("error", error.message())
      .Emit();
}

void WorkerProcessReporter::LeaseRenewalFailed(const queue::Job& job,
                                               const Status& error) {
  metrics_->CountOtherDatabaseError();
  obs::Warn("job_" + std::to_string(job.id), "lease renewal failed")
      .Str("error", error.message())
      .Emit();
}

void WorkerProcessReporter::JobCheckFailed(const queue::Job& job,
                                           const Status& error) {
  metrics_->CountOtherDatabaseError();
  obs::Warn("job_" + std::to_string(job.id), "job check failed")
      .Str("error", error.message())
      .Emit();
}

void WorkerProcessReporter::JobRecorded(const queue::Job& job,
                                        const queue::Recorded& recorded,
                                        double duration_secs) {
  obs::Event event = MakeJobEvent(job.id, job.kind, recorded.state,
                                  recorded.attempts, recorded.deferred);
  event.Num("duration_s", duration_secs);
  if (recorded.dead_reason != queue::DeadReason::kNone) {
    event.Str("dead_reason", queue::DeadReasonName(recorded.dead_reason));
  }
  if (!recorded.applied) event.Bool("discarded", true);
  status_->slot(slot_).jobs_done.fetch_add(1, std::memory_order_relaxed);
  if (recorded.taken_over) {
    // Whoever took the job from this worker reported it (a reclaim, or the
    // worker that ran it again): counted once, there.
    metrics_->ObserveJobDuration(KindLabel(job.kind), duration_secs);
    event.Emit();
    return;
  }
  ReportJob(*metrics_, event, KindLabel(job.kind),
            JobOutcome(recorded.state, recorded.deferred), recorded.lag_secs,
            duration_secs);
}

void WorkerProcessReporter::JobReclaimed(const queue::Reclaimed& job) {
  switch (job.why) {
    case queue::TakenBack::kLeaseExpired:
      metrics_->CountLeaseReclaim();
      break;
    case queue::TakenBack::kHolderSilent:
      metrics_->CountSilentHolderReclaim();
      break;
    case queue::TakenBack::kWorkerDied:
      metrics_->CountCrashRequeue();
      break;
  }
  obs::Event event = MakeJobEvent(job.id, job.kind, job.state, job.attempts);
  event.Str("reason", queue::TakenBackName(job.why));
  if (job.dead_reason != queue::DeadReason::kNone) {
    event.Str("dead_reason", queue::DeadReasonName(job.dead_reason));
  }
  ReportJob(*metrics_, event, KindLabel(job.kind), JobOutcome(job.state, false),
            job.lag_secs, -1);
}

void WorkerProcessReporter::OutcomeNotRecorded(const queue::Job& job) {
  obs::Error("job_" + std::to_string(job.id),
             "outcome not recorded; the job will be retried after its lease "
             "expires")
      .Str("kind", job.kind)
      .Emit();
}

}  // namespace awc::worker
