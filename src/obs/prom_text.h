// PromText: a writer of the Prometheus text exposition format 0.0.4, the
// body of /metrics. Every renderer of obs/ writes through it, so the format
// rules live in one place.
//
// Contract:
//  - Family() writes the "# HELP" and "# TYPE" lines of a metric family;
//    the samples of that family follow it, before the next Family().
//  - Help text escapes "\" and newline; label values escape "\", '"' and
//    newline. Metric and label names are the caller's constants and are
//    written as given.
//  - Values: integers as decimal; doubles with the shortest digits that
//    read back exactly, in the layout of the Go client library (so bucket
//    bounds, the `le` label, read as dashboards expect: "0.0005", "600",
//    "1e-07", "1.5e+09"), "NaN", "+Inf" and "-Inf".
//  - A sample without labels has no braces.
#ifndef AWC_OBS_PROM_TEXT_H_
#define AWC_OBS_PROM_TEXT_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace awc::obs {

enum class MetricType { kCounter, kGauge, kHistogram };

// One label: name and value.
using Label = std::pair<std::string_view, std::string_view>;

// The text of `v` as a sample value.
std::string FormatMetricValue(double v);

class PromText {
 public:
  void Family(std::string_view name, std::string_view help, MetricType type);

  void Sample(std::string_view name, std::span<const Label> labels,
              std::string_view value);
  void Sample(std::string_view name, std::span<const Label> labels,
              double value) {
    Sample(name, labels, FormatMetricValue(value));
  }
  void Sample(std::string_view name, std::span<const Label> labels,
              uint64_t value) {
    Sample(name, labels, std::to_string(value));
  }
  void Sample(std::string_view name, std::initializer_list<Label> labels,
              double value) {
    Sample(name, std::span<const Label>(labels.begin(), labels.size()), value);
  }
  void Sample(std::string_view name, std::initializer_list<Label> labels,
              uint64_t value) {
    Sample(name, std::span<const Label>(labels.begin(), labels.size()), value);
  }

  // The samples of one histogram series: name_bucket{labels, le=...} for
  // each of `bounds` (with `buckets[i]` the observations in bucket i, not
  // cumulative) and +Inf (= `count`), then name_sum and name_count. A
  // cumulative bucket never exceeds `count`, even if the counts were read
  // while observations were being added.
  void Histogram(std::string_view name, std::span<const Label> labels,
                 std::span<const double> bounds,
                 std::span<const uint64_t> buckets, double sum, uint64_t count);

  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_PROM_TEXT_H_
