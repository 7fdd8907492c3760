#include "obs/prom_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace awc::obs {
namespace {

TEST(PromTextTest, FamilyHeaderEscapesHelp) {
  PromText out;
  out.Family("awc_x_total", "Back\\slash and\nnewline, \"quotes\" kept.",
             MetricType::kCounter);
  EXPECT_EQ(out.text(),
            "# HELP awc_x_total Back\\\\slash and\\nnewline, \"quotes\" "
            "kept.\n"
            "# TYPE awc_x_total counter\n");
  PromText g;
  g.Family("awc_g", "G.", MetricType::kGauge);
  g.Family("awc_h", "H.", MetricType::kHistogram);
  EXPECT_EQ(g.text(),
            "# HELP awc_g G.\n# TYPE awc_g gauge\n"
            "# HELP awc_h H.\n# TYPE awc_h histogram\n");
}

TEST(PromTextTest, SamplesEscapeLabelValues) {
  PromText out;
  out.Sample("awc_x_total", {{"kind", "a\"b\\c\nd"}, {"op", "get"}},
             uint64_t{7});
  out.Sample("awc_y", {}, 0.5);
  EXPECT_EQ(out.text(),
            "awc_x_total{kind=\"a\\\"b\\\\c\\nd\",op=\"get\"} 7\n"
            "awc_y 0.5\n");
}

TEST(PromTextTest, ValuesInTheFormatsPrometheusReads) {
  EXPECT_EQ(FormatMetricValue(3), "3");
  EXPECT_EQ(FormatMetricValue(1.25), "1.25");
  EXPECT_EQ(FormatMetricValue(1e-7), "1e-07");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()),
            "-Inf");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatMetricValue(1700000000.5), "1.7000000005e+09");
  EXPECT_EQ(FormatMetricValue(0.0005), "0.0005");
  EXPECT_EQ(FormatMetricValue(0.00005), "5e-05");
  EXPECT_EQ(FormatMetricValue(600), "600");
  EXPECT_EQ(FormatMetricValue(123456.5), "123456.5");
  EXPECT_EQ(FormatMetricValue(1e6), "1e+06");
  EXPECT_EQ(FormatMetricValue(-2.5), "-2.5");
  EXPECT_EQ(FormatMetricValue(0), "0");
}

TEST(PromTextTest, HistogramIsCumulativeAndNeverAboveItsCount) {
  PromText out;
  const double bounds[] = {0.1, 1};
  const uint64_t buckets[] = {2, 3};
  const Label labels[] = {{"op", "get"}};
  // 5 observations in the buckets but a count of 4 read earlier: the
  // cumulative buckets are capped at the count.
  out.Histogram("awc_h_seconds", labels, bounds, buckets, 2.5, 4);
  EXPECT_EQ(out.text(),
            "awc_h_seconds_bucket{op=\"get\",le=\"0.1\"} 2\n"
            "awc_h_seconds_bucket{op=\"get\",le=\"1\"} 4\n"
            "awc_h_seconds_bucket{op=\"get\",le=\"+Inf\"} 4\n"
            "awc_h_seconds_sum{op=\"get\"} 2.5\n"
            "awc_h_seconds_count{op=\"get\"} 4\n");
  PromText bare;
  bare.Histogram("awc_b", {}, bounds, buckets, 0, 9);
  EXPECT_EQ(bare.text(),
            "awc_b_bucket{le=\"0.1\"} 2\n"
            "awc_b_bucket{le=\"1\"} 5\n"
            "awc_b_bucket{le=\"+Inf\"} 9\n"
            "awc_b_sum 0\n"
            "awc_b_count 9\n");
}

}  // namespace
}  // namespace awc::obs
