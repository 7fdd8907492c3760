// The standard process_* metrics of the process that serves /metrics (the
// master), read from /proc at scrape time, as the Prometheus client
// libraries define them (their rows: metric_families.h).
//
// Contract:
//  - process_cpu_seconds_total (user + system time), process_resident_
//    memory_bytes, process_virtual_memory_bytes, process_start_time_seconds
//    (since the epoch), process_open_fds and process_max_fds (the soft
//    limit; absent when unlimited).
//  - Reads go through Env; a file that cannot be read or parsed leaves out
//    the metrics that come from it, never the scrape.
//  - Only /proc/self is read, which the unit's ProcSubset=pid leaves
//    visible: the boot time the start time counts from is Env::NowWall()
//    less Env::NowBoot(), not the btime of /proc/stat.
#ifndef AWC_OBS_PROCESS_METRICS_H_
#define AWC_OBS_PROCESS_METRICS_H_

#include <optional>
#include <string>

#include "common/env.h"
#include "obs/metric_families.h"

namespace awc::obs {

struct ProcSource {
  Env* env = Env::Default();
  std::string self = "/proc/self";  // stat, limits, fd/
  long clock_ticks = 0;             // per second; 0: sysconf(_SC_CLK_TCK)
  long page_size = 0;               // bytes; 0: sysconf(_SC_PAGESIZE)
};

// What /proc said: the value of each process_* family (metric_families.h)
// that could be read.
struct ProcReading {
  std::optional<double> values[kNumMetricFamilies];  // by MetricId

  std::optional<double> Get(MetricId id) const {
    return values[static_cast<int>(id)];
  }
  void Set(MetricId id, double v) { values[static_cast<int>(id)] = v; }
};

ProcReading ReadProcess(const ProcSource& source = {});

}  // namespace awc::obs

#endif  // AWC_OBS_PROCESS_METRICS_H_
