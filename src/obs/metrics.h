// Metrics: the job, error and worker instruments of awc-worker, kept in a
// fixed-size region of shared memory.
//
// Contract:
//  - The region is mapped (MAP_SHARED | MAP_ANONYMOUS) by the parent before
//    it forks, so every child records into the same counters and nothing is
//    lost when a child crashes. No pointers live in the region.
//  - Recording is lock-free once a label set has a slot. Allocating a new
//    slot takes a process-shared robust mutex, so a child that dies holding
//    it cannot wedge the others.
//  - Each instrument holds at most kMaxLabelSets distinct label sets; later
//    ones are recorded under the label value "cardinality_overflow" (every
//    label of the set takes that value), which does not count against the
//    cap. A label value longer than kMaxLabelValue bytes (or holding a NUL
//    byte) overflows too.
//  - RenderPrometheus() writes the text exposition format 0.0.4, label
//    values escaped, instruments always present with HELP and TYPE.
//
// Instruments (names and labels are a contract with dashboards and alerts;
// docs/ARCHITECTURE.md, "Observability"):
//   awc_background_jobs_total{kind,outcome}       counter
//   awc_background_job_lag_seconds{kind}          gauge (last value)
//   awc_api_errors_total{component="worker"}      counter
//   awc_background_job_duration_seconds{kind}     histogram
//   awc_worker_restarts_total                     counter
//   awc_workers_running                           gauge (set by the parent)
//   awc_scheduler_leader                          gauge (set by the scheduler,
//                                                 reset by the parent)
//   awc_schedule_runs_total{schedule,result}      counter
//   awc_scheduler_jobs_enqueued_total{schedule}   counter
#ifndef AWC_OBS_METRICS_H_
#define AWC_OBS_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::obs {

inline constexpr int kMaxLabelSets = 128;
inline constexpr size_t kMaxLabelValue = 95;
inline constexpr std::string_view kOverflowLabel = "cardinality_overflow";

struct MetricsRegion;  // the shared layout, private to metrics.cc

class Metrics {
 public:
  // Maps a new zeroed shared region. Call in the parent, before fork().
  static Result<Metrics> CreateShared();
  ~Metrics();
  Metrics(Metrics&& other) noexcept;
  Metrics& operator=(Metrics&&) = delete;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void CountJob(std::string_view kind, std::string_view outcome);
  void SetJobLag(std::string_view kind, double seconds);
  void ObserveJobDuration(std::string_view kind, double seconds);
  void CountApiError();  // component="worker"
  void CountRestart();
  void SetWorkersRunning(int n);
  // The scheduler's (docs/ARCHITECTURE.md, "Scheduler").
  void CountScheduleRun(std::string_view schedule, std::string_view result);
  void CountScheduleEnqueued(std::string_view schedule, int64_t n);
  void SetSchedulerLeader(bool leader);

  std::string RenderPrometheus() const;

  // Current values, for tests and the supervisor's status line. Label sets
  // that were never recorded read 0, and so do those recorded under the
  // overflow; pass kOverflowLabel for every label to read the overflow.
  double JobCount(std::string_view kind, std::string_view outcome) const;
  double JobLag(std::string_view kind) const;
  double ApiErrors() const;
  double ScheduleRuns(std::string_view schedule, std::string_view result) const;
  double ScheduleEnqueued(std::string_view schedule) const;
  bool SchedulerLeader() const;
  double TotalJobs() const;

 private:
  explicit Metrics(MetricsRegion* region) : region_(region) {}
  MetricsRegion* region_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_H_
