#include "obs/scrape.h"

#include "obs/prom_text.h"

namespace awc::obs {
namespace {

constexpr WorkerPhase kPhases[] = {WorkerPhase::kDown, WorkerPhase::kConnecting,
                                   WorkerPhase::kIdle, WorkerPhase::kBusy,
                                   WorkerPhase::kStopping};

}  // namespace

std::string RenderScrape(const Metrics& metrics,
                         const WorkerStatusTable* status,
                         const ProcSource& proc) {
  PromText out;
  out.Family("awc_build_info",
             "Always 1; the labels say which build of awc-worker runs.",
             MetricType::kGauge);
  out.Sample("awc_build_info",
             {{"version", AWC_VERSION}, {"s3", AWC_WITH_S3 ? "yes" : "no"}},
             1.0);
  if (status != nullptr) {
    out.Family("awc_workers", "Worker slots by phase.", MetricType::kGauge);
    for (WorkerPhase phase : kPhases) {
      out.Sample("awc_workers", {{"phase", WorkerPhaseName(phase)}},
                 static_cast<double>(status->Count(phase)));
    }
  }
  RenderProcessMetrics(&out, proc);
  return metrics.RenderPrometheus() + out.Take();
}

}  // namespace awc::obs
