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

// clang-format off
constexpr FamilyDesc kJobs = {
    "awc_background_jobs_total",
    "Background jobs processed, by kind and outcome.",
    MetricType::kCounter, 2, {"kind", "outcome"}};
constexpr FamilyDesc kLag = {
    "awc_background_job_lag_seconds",
    "Seconds from ready to processed of the last job of each kind.",
    MetricType::kGauge, 1, {"kind", nullptr}};
constexpr FamilyDesc kDuration = {
    "awc_background_job_duration_seconds",
    "Handler run time of background jobs, by kind.",
    MetricType::kHistogram, 1, {"kind", nullptr}};
// clang-format on

}  // namespace

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
  RenderFamily(&out, kDuration, region_->families[kDurationFamily],
               kDurationBounds);
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
  RenderScheduler(&out);
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

double Metrics::LeaseReclaims() const {
  return region_ != nullptr ? static_cast<double>(region_->lease_reclaims.Get())
                            : 0;
}

}  // namespace awc::obs
