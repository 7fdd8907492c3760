// The layout of the shared metrics region (metrics.h), from the table of
// families (metric_families.h): a Family of label sets for each family of
// source kLabelSets, one series for each of source kCell, in table order.
// Private to the files of obs/ that implement Metrics.
#ifndef AWC_OBS_METRICS_REGION_H_
#define AWC_OBS_METRICS_REGION_H_

#include <array>
#include <type_traits>

#include "obs/metric_cells.h"
#include "obs/metric_families.h"

namespace awc::obs {

// How many families of the table come from `source`.
constexpr int CountOf(MetricSource source) {
  int n = 0;
  for (const MetricFamily& f : kMetricFamilies) n += f.source == source;
  return n;
}

// The index of each family among the families of its source: its place in
// MetricsRegion::families or MetricsRegion::cells.
inline constexpr std::array<int, kNumMetricFamilies> kSlots = [] {
  std::array<int, kNumMetricFamilies> slots{};
  for (int i = 0; i < kNumMetricFamilies; ++i) {
    for (int j = 0; j < i; ++j) {
      slots[i] += kMetricFamilies[j].source == kMetricFamilies[i].source;
    }
  }
  return slots;
}();

constexpr int SlotOf(MetricId id) { return kSlots[static_cast<int>(id)]; }

struct MetricsRegion {
  Family families[CountOf(MetricSource::kLabelSets)];
  SeriesCells cells[CountOf(MetricSource::kCell)];
};

static_assert(std::is_trivially_destructible_v<MetricsRegion>,
              "the shared region is unmapped, never destroyed");

}  // namespace awc::obs

#endif  // AWC_OBS_METRICS_REGION_H_
