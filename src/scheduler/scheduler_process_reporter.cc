#include "scheduler/scheduler_process_reporter.h"

#include <bsd/unistd.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <utility>

#include "obs/log.h"
#include "queue/job.h"
#include "scheduler/spec.h"

namespace awc::scheduler {

SchedulerProcessReporter::SchedulerProcessReporter(
    obs::Metrics* metrics, std::string holder, std::vector<std::string> kinds,
    bool set_title)
    : metrics_(metrics),
      holder_(std::move(holder)),
      kinds_(std::move(kinds)),
      set_title_(set_title) {}

void SchedulerProcessReporter::RoleChanged(SchedulerRole role) {
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

void SchedulerProcessReporter::LeadershipLost(const std::string& during) {
  obs::Warn("scheduler", "leadership lost")
      .Str("holder", holder_)
      .Str("during", during)
      .Emit();
}

void SchedulerProcessReporter::Ran(const RunReport& run) {
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
  if (run.coverage) CoverageSampled(*run.coverage);
}

void SchedulerProcessReporter::LeaseClamped(const LeaseClamp& c) {
  obs::Warn("scheduler", "leader lease clamped")
      .Str("lease", c.name)
      .Str("holder", c.holder)
      .Int("token", c.token)
      .Str("expires_at", c.expires_at)
      .Str("clamped_to", c.clamped_to)
      .Int("lease_s", c.lease_secs)
      .Emit();
}

void SchedulerProcessReporter::ScheduleClamped(const ScheduleClamp& c) {
  auto iso = [](int64_t us) {
    return obs::FormatTimestamp(static_cast<double>(us) / kMicros);
  };
  obs::Warn("schedule_" + c.schedule, "schedule next run clamped")
      .Str("schedule", c.schedule)
      .Str("spec", c.spec)
      .Int("period_s", c.period_secs)
      .Str("next_run", iso(c.from_us))
      .Str("clamped_to", iso(c.to_us))
      .Emit();
}

void SchedulerProcessReporter::CoverageSampled(const ScrubCoverage& c) {
  double ratio = c.objects > 0 ? static_cast<double>(c.verified) /
                                     static_cast<double>(c.objects)
                               : 1.0;
  if (metrics_ != nullptr) {
    metrics_->SetScrubCoverage(c.oldest_unverified_secs, ratio,
                               c.required_bytes_per_sec,
                               c.budget_bytes_per_sec);
  }
  // The planner cannot keep the promise with the budget it has: say so
  // before objects age past it, and again once they have.
  if (!c.budget_enough()) {
    obs::Warn("scheduler",
              "scrub budget too small for the coverage promise: raise "
              "AWC_SCRUB_BUDGET_MB_PER_SEC or AWC_SCRUB_INTERVAL_SECS")
        .Int("promise_s", c.promise_secs)
        .Int("bytes", c.bytes)
        .Num("required_bytes_per_sec", c.required_bytes_per_sec)
        .Num("budget_bytes_per_sec", c.budget_bytes_per_sec)
        .Emit();
  }
  if (c.broken()) {
    obs::Warn("scheduler",
              "scrub coverage promise broken: an object has "
              "waited longer than AWC_SCRUB_INTERVAL_SECS")
        .Int("promise_s", c.promise_secs)
        .Num("oldest_unverified_s", c.oldest_unverified_secs)
        .Num("verified_ratio", ratio)
        .Emit();
  }
}

void SchedulerProcessReporter::QueueSampled(
    const std::vector<queue::Depth>& depth) {
  if (metrics_ == nullptr) return;
  struct Tally {
    int64_t count[std::size(queue::kQueueStates)] = {};  // by row
    double oldest = 0;
  };
  constexpr const char* kUnknown = "unknown";
  std::map<std::string, Tally, std::less<>> tally;
  for (const std::string& kind : kinds_) tally[kind];
  Tally& unknown = tally[kUnknown];
  std::array<double, queue::kPriorityCount> oldest_by_priority = {};
  for (const queue::Depth& d : depth) {
    if (d.state == queue::JobState::kPending && d.priority >= 0 &&
        d.priority < queue::kPriorityCount) {
      double& oldest = oldest_by_priority[static_cast<size_t>(d.priority)];
      oldest = std::max(oldest, d.oldest_ready_secs.value_or(0));
    }
    auto it = tally.find(d.kind);
    Tally& t = it != tally.end() ? it->second : unknown;
    for (size_t s = 0; s < std::size(queue::kQueueStates); ++s) {
      if (queue::kQueueStates[s].state == d.state) t.count[s] += d.count;
    }
    if (d.state == queue::JobState::kPending) {
      t.oldest = std::max(t.oldest, d.oldest_ready_secs.value_or(0));
    }
  }
  for (const auto& [kind, t] : tally) {
    for (size_t s = 0; s < std::size(queue::kQueueStates); ++s) {
      metrics_->SetQueueJobs(kind, queue::kQueueStates[s].value, t.count[s]);
    }
    metrics_->SetQueueOldestPending(kind, t.oldest);
  }
  // Every priority, waiting or not: the label's set is closed.
  for (size_t p = 0; p < oldest_by_priority.size(); ++p) {
    metrics_->SetQueuePriorityOldestReady(std::to_string(p),
                                          oldest_by_priority[p]);
  }
}

void SchedulerProcessReporter::HorizonSampled(const queue::Horizon& horizon) {
  const std::optional<queue::Horizon::Holder>& h = horizon.holder;
  double held = h && h->held_secs ? *h->held_secs : 0;
  if (metrics_ != nullptr) metrics_->SetDatabaseHorizon(horizon.xids, held);
  std::string who = h ? h->kind + " " + h->name : "";
  if (h && held >= kHorizonWarnSecs && who != horizon_warned_) {
    obs::Warn("scheduler",
              "the database's horizon is held back: vacuum reclaims nothing "
              "in awc.jobs until it ends")
        .Str("holder", queue::Describe(*h))
        .Num("held_s", held)
        .Int("xids", horizon.xids)
        .Emit();
    horizon_warned_ = who;
  } else if (!horizon_warned_.empty() && who != horizon_warned_) {
    obs::Info("scheduler", "the holder of the database's horizon let go")
        .Str("holder", horizon_warned_)
        .Emit();
    horizon_warned_.clear();
  }
}

void SchedulerProcessReporter::DatabaseError(const std::string& step,
                                             const Status& error) {
  obs::Error("scheduler", "scheduler database error")
      .Str("step", step)
      .Str("error", error.message())
      .Emit();
}

void SchedulerProcessReporter::DatabaseUnavailable(const Status& error,
                                                   double retry_in_secs) {
  obs::Warn("scheduler", "database unavailable")
      .Str("error", error.message())
      .Num("retry_in_s", retry_in_secs)
      .Emit();
}

}  // namespace awc::scheduler
