#include "obs/metrics.h"

#include <sys/mman.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>

#include "obs/metrics_region.h"
#include "obs/prom_text.h"

namespace awc::obs {
namespace {

// Upper bounds of the job duration histogram, in seconds; +Inf is implicit.
constexpr double kDurationBounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                      0.5,   1,    2.5,   5,    10,  30,
                                      60,    120,  300,   600};
static_assert(std::size(kDurationBounds) <= kMaxBuckets);

// A family of the region and how it renders.
struct FamilyDesc {
  FamilyIndex index;
  const char* name;
  const char* help;
  MetricType type;
  int num_labels;
  const char* label_names[kMaxFamilyLabels];
};

// clang-format off
constexpr FamilyDesc kJobs = {
    kJobsFamily, "awc_background_jobs_total",
    "Background jobs processed, by kind and outcome.",
    MetricType::kCounter, 2, {"kind", "outcome"}};
constexpr FamilyDesc kLag = {
    kLagFamily, "awc_background_job_lag_seconds",
    "Seconds from ready to processed of the last job of each kind.",
    MetricType::kGauge, 1, {"kind", nullptr}};
constexpr FamilyDesc kDuration = {
    kDurationFamily, "awc_background_job_duration_seconds",
    "Handler run time of background jobs, by kind.",
    MetricType::kHistogram, 1, {"kind", nullptr}};
constexpr FamilyDesc kQueueJobs = {
    kQueueJobsFamily, "awc_queue_jobs",
    "Jobs in the queue by kind and state (failed: dead letters), as last "
    "sampled.",
    MetricType::kGauge, 2, {"kind", "state"}};
constexpr FamilyDesc kQueueOldest = {
    kQueueOldestFamily, "awc_queue_oldest_pending_seconds",
    "Seconds the oldest ready PENDING job of each kind has waited, as last "
    "sampled; 0 when none is ready.",
    MetricType::kGauge, 1, {"kind", nullptr}};
// clang-format on

void RenderFamily(PromText* out, const FamilyDesc& d, const Family& f) {
  out->Family(d.name, d.help, d.type);
  f.ForEach(
      d.num_labels, [&](const LabelValues& values, const FamilySeries& s) {
        Label labels[kMaxFamilyLabels];
        for (int j = 0; j < d.num_labels; ++j) {
          labels[j] = {d.label_names[j], values[j]};
        }
        std::span<const Label> set(labels, static_cast<size_t>(d.num_labels));
        switch (d.type) {
          case MetricType::kCounter:
            out->Sample(d.name, set, s.counter.Get());
            return;
          case MetricType::kGauge:
            out->Sample(d.name, set, s.gauge.Get());
            return;
          case MetricType::kHistogram:
            s.histogram.Render(out, d.name, set, kDurationBounds);
            return;
        }
      });
}

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

Result<Metrics> Metrics::CreateShared() {
  void* mem = mmap(nullptr, sizeof(MetricsRegion), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return Status::IoError(std::string("cannot map metrics region: ") +
                           strerror(errno));
  }
  auto* region = new (mem) MetricsRegion();
  for (Family& f : region->families) {
    if (int rc = f.Init(); rc != 0) {
      munmap(mem, sizeof(MetricsRegion));
      return Status::Internal(
          std::string("cannot set up the metrics allocation mutex: ") +
          strerror(rc));
    }
  }
  return Metrics(region);
}

Metrics::~Metrics() {
  if (region_ != nullptr) munmap(region_, sizeof(MetricsRegion));
}

Metrics::Metrics(Metrics&& other) noexcept
    : region_(std::exchange(other.region_, nullptr)) {}

void Metrics::CountJob(std::string_view kind, std::string_view outcome) {
  if (region_ == nullptr) return;
  region_->families[kJobsFamily].Acquire({kind, outcome}, 2)->counter.Add(1);
}

void Metrics::SetJobLag(std::string_view kind, double seconds) {
  if (region_ == nullptr) return;
  region_->families[kLagFamily].Acquire({kind, {}}, 1)->gauge.Set(seconds);
}

void Metrics::ObserveJobDuration(std::string_view kind, double seconds) {
  if (region_ == nullptr || std::isnan(seconds)) return;
  region_->families[kDurationFamily]
      .Acquire({kind, {}}, 1)
      ->histogram.Observe(kDurationBounds, seconds);
}

void Metrics::CountApiError() {
  if (region_ != nullptr) region_->api_errors.Add(1);
}

void Metrics::CountRestart() {
  if (region_ != nullptr) region_->restarts.Add(1);
}

void Metrics::SetWorkersRunning(int n) {
  if (region_ != nullptr) {
    region_->workers_running.Set(static_cast<double>(n));
  }
}

void Metrics::CountLeaseReclaim() {
  if (region_ != nullptr) region_->lease_reclaims.Add(1);
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

std::string Metrics::RenderPrometheus() const {
  if (region_ == nullptr) return "";
  PromText out;
  RenderFamily(&out, kJobs, region_->families[kJobsFamily]);
  RenderFamily(&out, kLag, region_->families[kLagFamily]);
  out.Family("awc_api_errors_total",
             "Database errors seen by the workers (claim, record, reclaim, "
             "lease renewal, heartbeat).",
             MetricType::kCounter);
  out.Sample("awc_api_errors_total", {{"component", "worker"}},
             region_->api_errors.Get());
  RenderFamily(&out, kDuration, region_->families[kDurationFamily]);
  out.Family("awc_worker_restarts_total",
             "Worker processes restarted by the supervisor.",
             MetricType::kCounter);
  out.Sample("awc_worker_restarts_total", {}, region_->restarts.Get());
  out.Family("awc_workers_running", "Worker processes currently running.",
             MetricType::kGauge);
  out.Sample("awc_workers_running", {}, region_->workers_running.Get());
  out.Family("awc_lease_reclaims_total",
             "Jobs whose lease expired, requeued or dead-lettered by the "
             "reclaim.",
             MetricType::kCounter);
  out.Sample("awc_lease_reclaims_total", {}, region_->lease_reclaims.Get());
  RenderFamily(&out, kQueueJobs, region_->families[kQueueJobsFamily]);
  RenderFamily(&out, kQueueOldest, region_->families[kQueueOldestFamily]);
  RenderStorage(&out);
  return out.Take();
}

double Metrics::JobCount(std::string_view kind,
                         std::string_view outcome) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s =
      region_->families[kJobsFamily].Find({kind, outcome}, 2);
  return s != nullptr ? static_cast<double>(s->counter.Get()) : 0;
}

double Metrics::JobLag(std::string_view kind) const {
  if (region_ == nullptr) return 0;
  const FamilySeries* s = region_->families[kLagFamily].Find({kind, {}}, 1);
  return s != nullptr ? s->gauge.Get() : 0;
}

double Metrics::ApiErrors() const {
  return region_ != nullptr ? static_cast<double>(region_->api_errors.Get())
                            : 0;
}

double Metrics::TotalJobs() const {
  if (region_ == nullptr) return 0;
  uint64_t total = 0;
  region_->families[kJobsFamily].ForEach(
      2, [&](const LabelValues&, const FamilySeries& s) {
        total += s.counter.Get();
      });
  return static_cast<double>(total);
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

double Metrics::LeaseReclaims() const {
  return region_ != nullptr ? static_cast<double>(region_->lease_reclaims.Get())
                            : 0;
}

}  // namespace awc::obs
