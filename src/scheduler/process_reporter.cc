#include "scheduler/process_reporter.h"

#include <bsd/unistd.h>

#include <utility>

#include "obs/log.h"
#include "scheduler/spec.h"

namespace awc::scheduler {

ProcessReporter::ProcessReporter(obs::Metrics* metrics, std::string holder,
                                 bool set_title)
    : metrics_(metrics), holder_(std::move(holder)), set_title_(set_title) {}

void ProcessReporter::RoleChanged(SchedulerRole role) {
  bool leader = role == SchedulerRole::kLeader;
  if (set_title_) {
    setproctitle("-awc-worker: scheduler %s", leader ? "leader" : "standby");
  }
  if (metrics_ != nullptr) metrics_->SetSchedulerLeader(leader);
  if (leader && !leader_) {
    obs::Info("scheduler", "leadership acquired").Str("holder", holder_).Emit();
  }
  leader_ = leader;
}

void ProcessReporter::LeadershipLost(const std::string& during) {
  obs::Warn("scheduler", "leadership lost")
      .Str("holder", holder_)
      .Str("during", during)
      .Emit();
}

void ProcessReporter::Ran(const RunReport& run) {
  obs::Event e = run.ok
                     ? obs::Info("schedule_" + run.schedule, "schedule run")
                     : obs::Error("schedule_" + run.schedule, "schedule run");
  e.Str("schedule", run.schedule)
      .Str("result", run.result())
      .Str("slot",
           obs::FormatTimestamp(static_cast<double>(run.slot_us) / kMicros))
      .Int("missed", run.missed)
      .Int("enqueued", run.enqueued);
  if (run.pruned) {
    e.Int("pruned_jobs", run.pruned->jobs)
        .Int("pruned_dead_letters", run.pruned->dead_letters)
        .Int("pruned_audit_events", run.pruned->audit_events)
        .Int("pruned_gc_candidates", run.pruned->gc_candidates);
  } else {
    e.Int("due", run.due);
  }
  if (!run.ok) e.Str("error", run.error);
  e.Num("duration_s", run.duration_secs)
      .Str("next_run",
           obs::FormatTimestamp(static_cast<double>(run.next_us) / kMicros))
      .Emit();
  if (metrics_ != nullptr) {
    metrics_->CountScheduleRun(run.schedule, run.result());
    metrics_->CountScheduleEnqueued(run.schedule, run.enqueued);
  }
}

void ProcessReporter::DatabaseError(const std::string& step,
                                    const Status& error) {
  obs::Error("scheduler", "scheduler database error")
      .Str("step", step)
      .Str("error", error.message())
      .Emit();
}

}  // namespace awc::scheduler
