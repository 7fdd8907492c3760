#include "obs/progress.h"

#include <gtest/gtest.h>

#include "common/json.h"

namespace awc::obs {
namespace {

TEST(ProgressTest, AScrubShowsItsShareRateAndEta) {
  JobProgress p{.objects = 450,
                .objects_total = 1000,
                .bytes = 1'200'000'000,
                .bytes_total = 2'600'000'000};
  // 1.2 GB in 100 s: 12 MB/s; 1.4 GB to go: 117 s.
  EXPECT_EQ(ProgressLine(p, 100), "46% 1.2 GB of 2.6 GB, 12 MB/s, eta 2m");
  Result<JsonPtr> j = ParseJson(ProgressJson(p, 100));
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(json_integer_value(json_object_get(j->get(), "bytes_total")),
            2'600'000'000);
  EXPECT_DOUBLE_EQ(json_number_value(json_object_get(j->get(), "eta_secs")),
                   117);
  EXPECT_STREQ(json_string_value(json_object_get(j->get(), "line")),
               "46% 1.2 GB of 2.6 GB, 12 MB/s, eta 2m");
}

TEST(ProgressTest, WithoutTotalsItShowsWhatIsDone) {
  JobProgress p{
      .objects = 3000, .objects_total = -1, .bytes = 5'000, .bytes_total = -1};
  EXPECT_EQ(ProgressLine(p, 2), "5.0 kB, 3000 objects, 2.5 kB/s");
  Result<JsonPtr> j = ParseJson(ProgressJson(p, 2));
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(json_is_null(json_object_get(j->get(), "eta_secs")));
  EXPECT_TRUE(json_is_null(json_object_get(j->get(), "bytes_total")));
}

TEST(ProgressTest, ObjectsStandInForUnknownBytesAndLongEtasReadAsHours) {
  JobProgress p{
      .objects = 10, .objects_total = 100, .bytes = 0, .bytes_total = -1};
  EXPECT_EQ(ProgressLine(p, 600), "10% 10 of 100 objects, 0 B/s, eta 1h30m");
  JobProgress done{
      .objects = 5, .objects_total = 5, .bytes = 10, .bytes_total = 10};
  EXPECT_EQ(ProgressLine(done, 1), "100% 10 B of 10 B, 10 B/s");
}

}  // namespace
}  // namespace awc::obs
