#include "obs/worker_status.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace awc::obs {
namespace {

TEST(WorkerStatusTest, StartsDownAndCountsPhases) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(4);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->size(), 4);
  EXPECT_EQ(table->Count(WorkerPhase::kDown), 4);
  table->SetPhase(0, WorkerPhase::kIdle);
  table->SetPhase(1, WorkerPhase::kBusy);
  table->SetPhase(2, WorkerPhase::kConnecting);
  EXPECT_EQ(table->Count(WorkerPhase::kIdle), 1);
  EXPECT_EQ(table->Count(WorkerPhase::kBusy), 1);
  EXPECT_EQ(table->Count(WorkerPhase::kDown), 1);
  EXPECT_STREQ(WorkerPhaseName(table->Phase(2)), "connecting");
}

TEST(WorkerStatusTest, ConnectedNeedsAWorkerUpWithAWorkingSession) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(3);
  ASSERT_TRUE(table.ok());
  for (int i = 0; i < 3; ++i) table->slot(i).db_ok.store(true);
  table->SetPhase(0, WorkerPhase::kIdle);
  table->SetPhase(1, WorkerPhase::kBusy);
  table->SetPhase(2, WorkerPhase::kConnecting);
  EXPECT_EQ(table->Connected(), 2);
  table->slot(1).db_ok.store(false);
  EXPECT_EQ(table->Connected(), 1);
}

TEST(WorkerStatusTest, AChildsWritesReachTheParent) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(2);
  ASSERT_TRUE(table.ok());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    table->SetPhase(1, WorkerPhase::kBusy);
    table->slot(1).job_id.store(81);
    table->slot(1).jobs_done.fetch_add(3);
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  EXPECT_EQ(table->Phase(1), WorkerPhase::kBusy);
  EXPECT_EQ(table->slot(1).job_id.load(), 81);
  EXPECT_EQ(table->JobsDone(), 3);
  EXPECT_EQ(table->Phase(0), WorkerPhase::kDown);
}

}  // namespace
}  // namespace awc::obs
