#include "obs/prom_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace awc::obs {
namespace {

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// Escapes "\" and newline, and '"' too when `quote`.
void AppendEscaped(std::string* out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else if (quote && c == '"') {
      *out += "\\\"";
    } else {
      *out += c;
    }
  }
}

}  // namespace

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // The shortest digits that read back exactly, laid out as Go's
  // strconv.FormatFloat(v, 'g', -1, 64) does (as the reference client
  // libraries write them): an exponent below -4 or from 6 up is written
  // in scientific form, anything else in fixed form.
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  if (ec != std::errc()) return "NaN";
  std::string sci(buf, end);
  int exp = std::atoi(sci.c_str() + sci.find('e') + 1);
  if (exp < -4 || exp >= 6) return sci;
  auto [fend, fec] =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  if (fec != std::errc()) return sci;
  return std::string(buf, fend);
}

void PromText::Family(std::string_view name, std::string_view help,
                      MetricType type) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  AppendEscaped(&out_, help, false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += TypeName(type);
  out_ += '\n';
}

void PromText::Sample(std::string_view name, std::span<const Label> labels,
                      std::string_view value) {
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += labels[i].first;
      out_ += "=\"";
      AppendEscaped(&out_, labels[i].second, true);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void PromText::Histogram(std::string_view name, std::span<const Label> labels,
                         std::span<const double> bounds,
                         std::span<const uint64_t> buckets, double sum,
                         uint64_t count) {
  std::string bucket = std::string(name) + "_bucket";
  std::vector<Label> with_le(labels.begin(), labels.end());
  with_le.push_back({"le", ""});
  uint64_t cumulative = 0;
  for (size_t b = 0; b < bounds.size(); ++b) {
    cumulative += b < buckets.size() ? buckets[b] : 0;
    std::string le = FormatMetricValue(bounds[b]);
    with_le.back().second = le;
    Sample(bucket, with_le, std::min(cumulative, count));
  }
  with_le.back().second = "+Inf";
  Sample(bucket, with_le, count);
  Sample(std::string(name) + "_sum", labels, FormatMetricValue(sum));
  Sample(std::string(name) + "_count", labels, std::to_string(count));
}

}  // namespace awc::obs
