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

namespace {

// The cells of the series of `labels` in `id`'s storage, allocating a label
// set when it has none; nullptr for a family read at scrape time.
SeriesCells* Acquire(MetricsRegion* region, MetricId id,
                     const LabelValues& labels) {
  const MetricFamily& f = FamilyOf(id);
  switch (f.source) {
    case MetricSource::kCell:
      return &region->cells[SlotOf(id)];
    case MetricSource::kLabelSets:
      return region->families[SlotOf(id)].Acquire(labels, NumLabels(f));
    case MetricSource::kScrape:
      break;
  }
  return nullptr;
}

// The cells of the series of `labels`, or nullptr when it has none.
const SeriesCells* Find(const MetricsRegion* region, MetricId id,
                        const LabelValues& labels) {
  const MetricFamily& f = FamilyOf(id);
  switch (f.source) {
    case MetricSource::kCell:
      return &region->cells[SlotOf(id)];
    case MetricSource::kLabelSets:
      return region->families[SlotOf(id)].Find(labels, NumLabels(f));
    case MetricSource::kScrape:
      break;
  }
  return nullptr;
}

}  // namespace

void Metrics::Add(MetricId id, const LabelValues& labels, uint64_t n) {
  if (region_ == nullptr || FamilyOf(id).type != MetricType::kCounter) return;
  if (SeriesCells* s = Acquire(region_, id, labels)) s->counter.Add(n);
}

void Metrics::Set(MetricId id, const LabelValues& labels, double value) {
  if (region_ == nullptr || FamilyOf(id).type != MetricType::kGauge) return;
  if (SeriesCells* s = Acquire(region_, id, labels)) s->gauge.Set(value);
}

void Metrics::Observe(MetricId id, const LabelValues& labels, double value) {
  const MetricFamily& f = FamilyOf(id);
  if (region_ == nullptr || f.type != MetricType::kHistogram ||
      std::isnan(value)) {
    return;
  }
  if (SeriesCells* s = Acquire(region_, id, labels)) {
    s->histogram.Observe(f.bounds, value);
  }
}

void Metrics::Declare(MetricId id, const LabelValues& labels) {
  if (region_ != nullptr) Acquire(region_, id, labels);
}

double Metrics::Read(MetricId id, const LabelValues& labels) const {
  if (region_ == nullptr) return 0;
  const SeriesCells* s = Find(region_, id, labels);
  if (s == nullptr) return 0;
  const MetricFamily& f = FamilyOf(id);
  switch (f.type) {
    case MetricType::kCounter:
      return static_cast<double>(s->counter.Get());
    case MetricType::kGauge:
      return s->gauge.Get();
    case MetricType::kHistogram:
      return static_cast<double>(s->histogram.Count());
  }
  return 0;
}

std::string Metrics::RenderPrometheus() const {
  if (region_ == nullptr) return "";
  PromText out;
  for (const MetricFamily& f : kMetricFamilies) {
    switch (f.source) {
      case MetricSource::kCell:
        out.Family(f.name, f.help, f.type);
        RenderSeries(&out, f, f.fixed, region_->cells[SlotOf(f.id)]);
        break;
      case MetricSource::kLabelSets:
        out.Family(f.name, f.help, f.type);
        RenderFamily(&out, f, region_->families[SlotOf(f.id)]);
        break;
      case MetricSource::kScrape:
        break;
    }
  }
  return out.Take();
}

}  // namespace awc::obs
