#include "obs/scrape.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "obs/metrics_test_support.h"
#include "store/store_request.h"

namespace awc::obs {
namespace {

using testing::HasLine;
using testing::Lines;
using testing::NewMetrics;

TEST(ScrapeTest, BuildInfoWorkerPhasesAndProcessAfterTheSharedOnes) {
  Metrics metrics = std::move(Metrics::CreateShared().value());
  // A table larger than the configuration, as the daemon's is: its unused
  // slots are not workers that are down.
  WorkerStatusTable status =
      std::move(WorkerStatusTable::CreateShared(8).value());
  status.SetPhase(0, WorkerPhase::kIdle);
  status.SetPhase(1, WorkerPhase::kBusy);
  status.SetPhase(2, WorkerPhase::kBusy);
  metrics.CountJob("gc_sweep", "completed");
  std::string text = RenderScrape(metrics, &status, 1);
  EXPECT_EQ(text.rfind(metrics.RenderPrometheus(), 0), 0u);
  EXPECT_TRUE(HasLine(text, "# TYPE awc_build_info gauge"));
  EXPECT_TRUE(HasLine(text, std::string("awc_build_info{version=\"") +
                                AWC_VERSION + "\",s3=\"" +
                                (AWC_WITH_S3 ? "yes" : "no") + "\"} 1"))
      << text;
  EXPECT_TRUE(HasLine(text, "# TYPE awc_workers gauge"));
  EXPECT_TRUE(HasLine(text, "awc_workers{phase=\"down\"} 1"));
  EXPECT_TRUE(HasLine(text, "awc_workers{phase=\"connecting\"} 0"));
  EXPECT_TRUE(HasLine(text, "awc_workers{phase=\"idle\"} 1"));
  EXPECT_TRUE(HasLine(text, "awc_workers{phase=\"busy\"} 2"));
  EXPECT_TRUE(HasLine(text, "awc_workers{phase=\"stopping\"} 0"));
  EXPECT_TRUE(HasLine(text, "# TYPE process_open_fds gauge"));
  EXPECT_EQ(RenderScrape(metrics, nullptr, 0).find("awc_workers{"),
            std::string::npos);
}

// Each family is declared once, with HELP then TYPE, and its samples
// follow it: what the text format requires of a whole scrape.
TEST(ScrapeTest, EveryFamilyOnceAndItsSamplesTogether) {
  Metrics metrics = std::move(Metrics::CreateShared().value());
  WorkerStatusTable status =
      std::move(WorkerStatusTable::CreateShared(2).value());
  metrics.CountJob("snapshot_scrub", "completed");
  metrics.ObserveJobDuration("snapshot_scrub", 0.2);
  metrics.ObserveStoreRequest(store::StoreUrl::Scheme::kS3,
                              store::StoreOp::kGet, store::StoreResult::kOk,
                              0.01);
  std::string text = RenderScrape(metrics, &status, 0);
  std::set<std::string> declared;
  std::string current;
  std::string type;
  std::string help_of;
  for (const std::string& l : Lines(text)) {
    ASSERT_FALSE(l.empty());
    if (l.rfind("# HELP ", 0) == 0) {
      std::string name = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(declared.insert(name).second) << "declared twice: " << name;
      help_of = name;
      continue;
    }
    if (l.rfind("# TYPE ", 0) == 0) {
      current = l.substr(7, l.find(' ', 7) - 7);
      type = l.substr(l.rfind(' ') + 1);
      EXPECT_EQ(current, help_of) << l;
      continue;
    }
    std::string name = l.substr(0, l.find_first_of("{ "));
    if (type == "histogram") {
      EXPECT_TRUE(name == current + "_bucket" || name == current + "_sum" ||
                  name == current + "_count")
          << l;
    } else {
      EXPECT_EQ(name, current) << l;
    }
  }
  EXPECT_GT(declared.size(), 20u);
}

}  // namespace
}  // namespace awc::obs
