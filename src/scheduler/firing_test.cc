// The run as last_result records it. (Firings themselves need a database:
// tests/scheduler/firing_db_test.cc.)
#include "scheduler/firing.h"

#include <gtest/gtest.h>

#include "scheduler/spec.h"

namespace awc::scheduler {
namespace {

TEST(RunReportTest, ResultJsonIsTheRecordOfTheRun) {
  RunReport run;
  run.schedule = "scrub";
  run.slot_us = 1796032800LL * kMicros;  // 2026-11-30T10:00:00Z
  run.missed = 1;
  run.due = 150;
  run.enqueued = 100;
  run.duration_secs = 0.5;
  EXPECT_EQ(run.ResultJson(),
            R"({"result":"ok","slot":"2026-11-30T10:00:00.000Z","missed":1,)"
            R"("due":150,"enqueued":100,"duration_s":0.5})");
  run.pruned = PruneResult{5, 1, 2, 7, false};
  EXPECT_EQ(run.ResultJson(),
            R"({"result":"ok","slot":"2026-11-30T10:00:00.000Z","missed":1,)"
            R"("jobs":5,"dead_letters":1,"audit_events":2,"gc_candidates":7,)"
            R"("complete":false,"duration_s":0.5})");
  run.ok = false;
  run.error = "bad \"spec\"";
  EXPECT_STREQ(run.result(), "error");
  EXPECT_EQ(run.ResultJson(),
            R"({"result":"error","slot":"2026-11-30T10:00:00.000Z",)"
            R"("missed":1,"error":"bad \"spec\"","duration_s":0.5})");
}

TEST(RunSummaryTest, SaysWhatTheRunDidInAFewWords) {
  RunReport fired;
  fired.due = 5;
  fired.enqueued = 3;
  EXPECT_EQ(RunSummary(fired.ResultJson()), "ok, 3 of 5 enqueued");
  RunReport pruned;
  pruned.pruned = PruneResult{};
  pruned.pruned->jobs = 10;
  EXPECT_EQ(RunSummary(pruned.ResultJson()),
            "ok, pruned 10 jobs, 0 dead letters, 0 audit events, 0 gc "
            "candidates");
  RunReport failed;
  failed.ok = false;
  failed.error = "statement timeout";
  EXPECT_EQ(RunSummary(failed.ResultJson()), "error: statement timeout");
  EXPECT_EQ(RunSummary("not json"), "not json");
}

}  // namespace
}  // namespace awc::scheduler
