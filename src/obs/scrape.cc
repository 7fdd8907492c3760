#include "obs/scrape.h"

#include "common/build_version.h"

namespace awc::obs {
namespace {

// The phases of live workers; a slot of the table in kDown may be one no
// worker of the configuration uses.
constexpr WorkerPhase kLivePhases[] = {WorkerPhase::kConnecting,
                                       WorkerPhase::kIdle, WorkerPhase::kBusy,
                                       WorkerPhase::kStopping};

}  // namespace

void BuildInfoSamples(const ScrapeInput&, const MetricFamily&,
                      ScrapeSamples* out) {
  out->push_back({{BuildVersion(), AWC_WITH_S3 ? "yes" : "no"}, 1.0});
}

void WorkerPhaseSamples(const ScrapeInput& in, const MetricFamily&,
                        ScrapeSamples* out) {
  if (in.status == nullptr) return;
  out->push_back({{WorkerPhaseName(WorkerPhase::kDown)},
                  static_cast<double>(in.workers_down)});
  for (WorkerPhase phase : kLivePhases) {
    out->push_back({{WorkerPhaseName(phase)},
                    static_cast<double>(in.status->Count(phase))});
  }
}

void RenderScraped(PromText* out, const ScrapeInput& input) {
  for (const MetricFamily& f : kMetricFamilies) {
    if (f.source != MetricSource::kScrape) continue;
    ScrapeSamples samples;
    f.scrape(input, f, &samples);
    if (samples.empty()) continue;
    out->Family(f.name, f.help, f.type);
    int n = NumLabels(f);
    for (const auto& [values, value] : samples) {
      Label labels[kMaxFamilyLabels];
      for (int j = 0; j < n; ++j) labels[j] = {f.labels[j], values[j]};
      out->Sample(f.name, std::span<const Label>(labels, n), value);
    }
  }
}

std::string RenderScrape(const Metrics& metrics,
                         const WorkerStatusTable* status, int workers_down,
                         const ProcSource& proc) {
  ProcReading reading = ReadProcess(proc);
  ScrapeInput input{status, workers_down, &reading};
  PromText out;
  RenderScraped(&out, input);
  return metrics.RenderPrometheus() + out.Take();
}

}  // namespace awc::obs
