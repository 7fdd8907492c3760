// The instruments of the scheduler process: its role, its schedules' runs,
// and the depth of the queue it samples for the host.
#include "obs/metrics.h"
#include "obs/metrics_region.h"
#include "obs/prom_text.h"

namespace awc::obs {
namespace {

// clang-format off
constexpr FamilyDesc kScheduleRuns = {
    "awc_schedule_runs_total",
    "Schedule firings by the leading scheduler, by schedule and result.",
    MetricType::kCounter, 2, {"schedule", "result"}};
constexpr FamilyDesc kScheduleEnqueued = {
    "awc_scheduler_jobs_enqueued_total",
    "Jobs enqueued by schedule firings, by schedule.",
    MetricType::kCounter, 1, {"schedule", nullptr}};
constexpr FamilyDesc kQueueJobs = {
    "awc_queue_jobs",
    "Jobs in the queue by kind and state (failed: dead letters), as last "
    "sampled.",
    MetricType::kGauge, 2, {"kind", "state"}};
constexpr FamilyDesc kQueueOldest = {
    "awc_queue_oldest_pending_seconds",
    "Seconds the oldest ready PENDING job of each kind has waited, as last "
    "sampled; 0 when none is ready.",
    MetricType::kGauge, 1, {"kind", nullptr}};
// clang-format on

}  // namespace

const char* QueueStateName(QueueState state) {
  switch (state) {
    case QueueState::kPending:
      return "pending";
    case QueueState::kRunning:
      return "running";
    case QueueState::kFailed:
      return "failed";
  }
  return "unknown";
}

void Metrics::CountScheduleRun(std::string_view schedule,
                               std::string_view result) {
  if (region_ == nullptr) return;
  region_->families[kScheduleRunsFamily]
      .Acquire({schedule, result}, 2)
      ->counter.Add(1);
}

void Metrics::CountScheduleEnqueued(std::string_view schedule, int64_t n) {
  if (region_ == nullptr || n < 0) return;
  region_->families[kScheduleEnqueuedFamily]
      .Acquire({schedule, {}}, 1)
      ->counter.Add(static_cast<uint64_t>(n));
}

void Metrics::SetSchedulerLeader(bool leader) {
  if (region_ != nullptr) region_->scheduler_leader.Set(leader ? 1.0 : 0.0);
}

void Metrics::SetQueueJobs(std::string_view kind, QueueState state, int64_t n) {
  if (region_ == nullptr) return;
  region_->families[kQueueJobsFamily]
      .Acquire({kind, QueueStateName(state)}, 2)
      ->gauge.Set(static_cast<double>(n));
}

void Metrics::SetQueueOldestPending(std::string_view kind, double seconds) {
  if (region_ == nullptr) return;
  region_->families[kQueueOldestFamily]
      .Acquire({kind, {}}, 1)
      ->gauge.Set(seconds);
}

void Metrics::RenderScheduler(PromText* out) const {
  out->Family("awc_scheduler_leader",
              "1 while this host's scheduler holds the leader lease, else 0.",
              MetricType::kGauge);
  out->Sample("awc_scheduler_leader", {}, region_->scheduler_leader.Get());
  RenderFamily(out, kScheduleRuns, region_->families[kScheduleRunsFamily]);
  RenderFamily(out, kScheduleEnqueued,
               region_->families[kScheduleEnqueuedFamily]);
  RenderFamily(out, kQueueJobs, region_->families[kQueueJobsFamily]);
  RenderFamily(out, kQueueOldest, region_->families[kQueueOldestFamily]);
}

double Metrics::ScheduleRuns(std::string_view schedule,
                             std::string_view result) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s =
      region_->families[kScheduleRunsFamily].Find({schedule, result}, 2);
  return s != nullptr ? static_cast<double>(s->counter.Get()) : 0;
}

double Metrics::ScheduleEnqueued(std::string_view schedule) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s =
      region_->families[kScheduleEnqueuedFamily].Find({schedule, {}}, 1);
  return s != nullptr ? static_cast<double>(s->counter.Get()) : 0;
}

bool Metrics::SchedulerLeader() const {
  return region_ != nullptr && region_->scheduler_leader.Get() > 0;
}

double Metrics::QueueJobs(std::string_view kind, QueueState state) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s = region_->families[kQueueJobsFamily].Find(
      {kind, QueueStateName(state)}, 2);
  return s != nullptr ? s->gauge.Get() : 0;
}

double Metrics::QueueOldestPending(std::string_view kind) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s =
      region_->families[kQueueOldestFamily].Find({kind, {}}, 1);
  return s != nullptr ? s->gauge.Get() : 0;
}

}  // namespace awc::obs
