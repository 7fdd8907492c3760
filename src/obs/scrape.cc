#include "obs/scrape.h"

#include "obs/prom_text.h"

namespace awc::obs {
namespace {

// The phases of live workers; a slot of the table in kDown may be one no
// worker of the configuration uses.
constexpr WorkerPhase kLivePhases[] = {WorkerPhase::kConnecting,
                                       WorkerPhase::kIdle, WorkerPhase::kBusy,
                                       WorkerPhase::kStopping};

}  // namespace

std::string RenderScrape(const Metrics& metrics,
                         const WorkerStatusTable* status, int workers_down,
                         const ProcSource& proc) {
  PromText out;
  out.Family("awc_build_info",
             "Always 1; the labels say which build of awc-worker runs.",
             MetricType::kGauge);
  out.Sample("awc_build_info",
             {{"version", AWC_VERSION}, {"s3", AWC_WITH_S3 ? "yes" : "no"}},
             1.0);
  if (status != nullptr) {
    out.Family("awc_workers",
               "Workers by phase; down: worker slots whose process is gone "
               "(waiting for its restart).",
               MetricType::kGauge);
    out.Sample("awc_workers", {{"phase", WorkerPhaseName(WorkerPhase::kDown)}},
               static_cast<double>(workers_down));
    for (WorkerPhase phase : kLivePhases) {
      out.Sample("awc_workers", {{"phase", WorkerPhaseName(phase)}},
                 static_cast<double>(status->Count(phase)));
    }
  }
  RenderProcessMetrics(&out, proc);
  return metrics.RenderPrometheus() + out.Take();
}

}  // namespace awc::obs
