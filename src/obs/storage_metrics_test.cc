// The verdict, GC, store and lease instruments: names, HELP and TYPE,
// their closed label sets (as the daemon declares them, from the modules
// that own them) and what recording does to them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "catalog/snapshot_verdict.h"
#include "gc/epoch_result.h"
#include "obs/metrics.h"
#include "obs/metrics_test_support.h"
#include "obs/metrics_testing.h"
#include "store/store_request.h"

namespace awc::obs {
namespace {

using testing::GcDeletedBytes;
using testing::GcDeletedObjects;
using testing::GcEpochs;
using testing::LeaseReclaims;
using testing::SnapshotVerdicts;
using testing::StoreBytesRead;
using testing::StoreRequests;

using testing::HasLine;
using testing::Lines;
using testing::NewMetrics;

using catalog::SnapshotVerdict;
using gc::GcEpochResult;
using store::StoreOp;
using store::StoreResult;
using Scheme = store::StoreUrl::Scheme;

// What the daemon declares at startup (daemon/daemon.cc).
void DeclareVerdictsAndEpochs(Metrics& m) {
  for (const catalog::SnapshotVerdictRow& v : catalog::kSnapshotVerdicts) {
    m.Declare(MetricId::kSnapshotVerdicts, MakeLabels(v.value));
  }
  for (const gc::GcEpochResultRow& r : gc::kGcEpochResults) {
    m.Declare(MetricId::kGcEpochs, MakeLabels(r.value));
  }
}

// Sample lines (not comments) of the family `name` (its _bucket, _sum and
// _count lines included).
std::vector<std::string> Samples(const std::string& text,
                                 const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(text)) {
    if (l.rfind(name, 0) != 0) continue;
    char next = l.size() > name.size() ? l[name.size()] : '\0';
    if (next == '{' || next == ' ' || next == '_') out.push_back(l);
  }
  return out;
}

TEST(StorageMetricsTest, EveryFamilyHasHelpAndType) {
  std::string text = NewMetrics().RenderPrometheus();
  for (const char* counter :
       {"awc_snapshot_verdicts_total", "awc_gc_epochs_total",
        "awc_gc_objects_deleted_total", "awc_gc_bytes_deleted_total",
        "awc_store_requests_total", "awc_store_bytes_read_total",
        "awc_lease_reclaims_total", "awc_crash_requeues_total"}) {
    EXPECT_TRUE(HasLine(text, std::string("# TYPE ") + counter + " counter"))
        << counter;
    EXPECT_NE(text.find(std::string("# HELP ") + counter + " "),
              std::string::npos)
        << counter;
  }
  EXPECT_TRUE(
      HasLine(text, "# TYPE awc_store_request_duration_seconds histogram"));
}

TEST(StorageMetricsTest, VerdictsAndEpochsShowTheirWholeClosedSetAtZero) {
  Metrics m = NewMetrics();
  EXPECT_TRUE(Samples(m.RenderPrometheus(), "awc_gc_epochs_total").empty());
  DeclareVerdictsAndEpochs(m);
  std::string text = m.RenderPrometheus();
  EXPECT_EQ(
      Samples(text, "awc_snapshot_verdicts_total"),
      (std::vector<std::string>{
          R"(awc_snapshot_verdicts_total{kind="validate",verdict="ready"} 0)",
          R"(awc_snapshot_verdicts_total{kind="validate",verdict="failed"} 0)",
          R"(awc_snapshot_verdicts_total{kind="scrub",verdict="clean"} 0)",
          R"(awc_snapshot_verdicts_total{kind="scrub",verdict="degraded"} 0)",
      }));
  EXPECT_EQ(Samples(text, "awc_gc_epochs_total"),
            (std::vector<std::string>{
                R"(awc_gc_epochs_total{result="completed"} 0)",
                R"(awc_gc_epochs_total{result="dry_run"} 0)",
                R"(awc_gc_epochs_total{result="aborted"} 0)",
                R"(awc_gc_epochs_total{result="refused"} 0)",
                R"(awc_gc_epochs_total{result="deferred"} 0)",
            }));
  EXPECT_TRUE(HasLine(text, "awc_gc_objects_deleted_total 0"));
  EXPECT_TRUE(HasLine(text, "awc_gc_bytes_deleted_total 0"));
  EXPECT_TRUE(HasLine(text, "awc_lease_reclaims_total 0"));
  // No store has served a request: no store series yet.
  EXPECT_TRUE(Samples(text, "awc_store_requests_total").empty());
  EXPECT_TRUE(Samples(text, "awc_store_request_duration_seconds").empty());
  EXPECT_TRUE(Samples(text, "awc_store_bytes_read_total").empty());
}

TEST(StorageMetricsTest, CountsVerdictsEpochsDeletionsAndReclaims) {
  Metrics m = NewMetrics();
  DeclareVerdictsAndEpochs(m);
  m.CountSnapshotVerdict(SnapshotVerdict::kValidateFailed);
  m.CountSnapshotVerdict(SnapshotVerdict::kScrubDegraded);
  m.CountSnapshotVerdict(SnapshotVerdict::kScrubDegraded);
  m.CountGcEpoch(GcEpochResult::kDeferred);
  m.CountGcEpoch(GcEpochResult::kCompleted);
  m.CountGcDeleted(3, 300);
  m.CountGcDeleted(2, 20);
  m.CountGcDeleted(-1, -5);  // ignored
  m.CountLeaseReclaim();
  EXPECT_EQ(SnapshotVerdicts(m, SnapshotVerdict::kScrubDegraded), 2);
  EXPECT_EQ(SnapshotVerdicts(m, SnapshotVerdict::kValidateReady), 0);
  EXPECT_EQ(GcEpochs(m, GcEpochResult::kDeferred), 1);
  EXPECT_EQ(GcDeletedObjects(m), 5);
  EXPECT_EQ(GcDeletedBytes(m), 320);
  EXPECT_EQ(LeaseReclaims(m), 1);
  std::string text = m.RenderPrometheus();
  EXPECT_TRUE(HasLine(
      text,
      R"(awc_snapshot_verdicts_total{kind="validate",verdict="failed"} 1)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(awc_snapshot_verdicts_total{kind="scrub",verdict="degraded"} 2)"));
  EXPECT_TRUE(HasLine(text, R"(awc_gc_epochs_total{result="deferred"} 1)"));
  EXPECT_TRUE(HasLine(text, R"(awc_gc_epochs_total{result="completed"} 1)"));
  EXPECT_TRUE(HasLine(text, "awc_gc_objects_deleted_total 5"));
  EXPECT_TRUE(HasLine(text, "awc_gc_bytes_deleted_total 320"));
  EXPECT_TRUE(HasLine(text, "awc_lease_reclaims_total 1"));
}

// Which series a store shows from its first request is the metered
// store's (worker/metered_store_test.cc); here, what a request records.
TEST(StorageMetricsTest, AStoreRequestCountsItsResultAndTime) {
  Metrics m = NewMetrics();
  m.ObserveStoreRequest(Scheme::kFile, StoreOp::kGet, StoreResult::kOk, 0.003);
  m.ObserveStoreRequest(Scheme::kFile, StoreOp::kGet, StoreResult::kNotFound,
                        0.0004);
  m.ObserveStoreRequest(Scheme::kFile, StoreOp::kDelete,
                        StoreResult::kTransient, 2);
  m.CountStoreBytesRead(Scheme::kFile, 4096);
  EXPECT_EQ(StoreRequests(m, Scheme::kFile, StoreOp::kGet, StoreResult::kOk),
            1);
  EXPECT_EQ(StoreRequests(m, "file", "get", "ok"), 1);
  EXPECT_EQ(StoreBytesRead(m, Scheme::kFile), 4096);
  std::string text = m.RenderPrometheus();
  EXPECT_EQ(
      Samples(text, "awc_store_requests_total"),
      (std::vector<std::string>{
          R"(awc_store_requests_total{store="file",op="get",result="ok"} 1)",
          R"(awc_store_requests_total{store="file",op="get",result="not_found"} 1)",
          R"(awc_store_requests_total{store="file",op="delete",result="transient"} 1)",
      }));
  // One histogram per op: 16 bounds, +Inf, sum and count each.
  EXPECT_EQ(Samples(text, "awc_store_request_duration_seconds").size(),
            2u * 19u);
  const std::string b = "awc_store_request_duration_seconds_bucket";
  EXPECT_TRUE(HasLine(text, b + R"({store="file",op="get",le="0.0005"} 1)"));
  EXPECT_TRUE(HasLine(text, b + R"({store="file",op="get",le="0.005"} 2)"));
  EXPECT_TRUE(HasLine(text, b + R"({store="file",op="delete",le="1"} 0)"));
  EXPECT_TRUE(HasLine(text, b + R"({store="file",op="delete",le="2.5"} 1)"));
  EXPECT_TRUE(HasLine(text, b + R"({store="file",op="delete",le="+Inf"} 1)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(awc_store_request_duration_seconds_count{store="file",op="get"} 2)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(awc_store_request_duration_seconds_sum{store="file",op="delete"} 2)"));
  EXPECT_EQ(Samples(text, "awc_store_bytes_read_total"),
            std::vector<std::string>{
                R"(awc_store_bytes_read_total{store="file"} 4096)"});
  EXPECT_EQ(text.find("store=\"s3\""), std::string::npos);
  EXPECT_EQ(text.find("store=\"memory\""), std::string::npos);
}

TEST(StorageMetricsTest, RecordsFromAForkedChildSurvive) {
  Metrics m = NewMetrics();
  pid_t pid = fork();
  if (pid == 0) {
    m.CountSnapshotVerdict(SnapshotVerdict::kValidateReady);
    m.ObserveStoreRequest(Scheme::kS3, StoreOp::kPut, StoreResult::kError, 0.1);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_EQ(SnapshotVerdicts(m, SnapshotVerdict::kValidateReady), 1);
  EXPECT_EQ(StoreRequests(m, Scheme::kS3, StoreOp::kPut, StoreResult::kError),
            1);
}

}  // namespace
}  // namespace awc::obs
