#include "obs/worker_status.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

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

TEST(WorkerStatusTest, ReadOnlyCountsRunningWorkersOnAReadOnlySession) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(3);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->ReadOnly(), 0);
  for (int i = 0; i < 3; ++i) table->slot(i).db_read_only.store(true);
  table->SetPhase(0, WorkerPhase::kConnecting);
  table->SetPhase(1, WorkerPhase::kIdle);
  EXPECT_EQ(table->ReadOnly(), 2) << "a slot with no process does not count";
  table->slot(1).db_read_only.store(false);
  EXPECT_EQ(table->ReadOnly(), 1);
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

// A dead worker's job in flight becomes its slot's orphan, which one taker
// gets; one that could not be handed back goes back unless a newer one
// came meanwhile.
TEST(WorkerStatusTest, ADeadWorkersJobIsAnOrphanForOneTaker) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(2);
  ASSERT_TRUE(table.ok());
  table->OrphanJob(0);  // nothing in flight: no orphan
  EXPECT_FALSE(table->TakeOrphan(0).has_value());
  EXPECT_FALSE(table->HasOrphans());
  table->SetJob(1, 81, 7001);
  table->OrphanJob(1);
  EXPECT_TRUE(table->HasOrphans());
  EXPECT_EQ(table->slot(1).job_id.load(), 0);
  std::optional<OrphanedJob> orphan = table->TakeOrphan(1);
  ASSERT_TRUE(orphan.has_value());
  EXPECT_EQ(orphan->job_id, 81);
  EXPECT_EQ(orphan->lease_token, 7001);
  EXPECT_EQ(orphan->slot, 1);
  EXPECT_FALSE(table->TakeOrphan(1).has_value()) << "taken twice";
  EXPECT_FALSE(table->HasOrphans());
  table->PutBackOrphan(*orphan);
  EXPECT_EQ(table->TakeOrphan(1)->job_id, 81);
  // A newer orphan is not overwritten by an older one put back.
  table->SetJob(1, 82, 7002);
  table->OrphanJob(1);
  table->PutBackOrphan(*orphan);
  std::optional<OrphanedJob> newer = table->TakeOrphan(1);
  ASSERT_TRUE(newer.has_value());
  EXPECT_EQ(newer->job_id, 82);
  EXPECT_EQ(newer->lease_token, 7002);
  EXPECT_FALSE(table->HasOrphans());
}

// Background places: no more than the limit are held; a holder keeps its
// place until it gives it back; the parent gives back an exited worker's.
TEST(WorkerStatusTest, BackgroundPlacesStayWithinTheLimit) {
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(4);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->BackgroundLimit(), 4);  // unset: no limit
  table->SetBackgroundLimit(2);
  EXPECT_TRUE(table->TakeBackgroundPlace(0));
  EXPECT_TRUE(table->TakeBackgroundPlace(0));  // kept, not taken twice
  EXPECT_TRUE(table->TakeBackgroundPlace(1));
  EXPECT_FALSE(table->TakeBackgroundPlace(2));
  EXPECT_EQ(table->BackgroundPlacesInUse(), 2);
  table->ReleaseBackgroundPlace(1);
  EXPECT_TRUE(table->TakeBackgroundPlace(2));
  EXPECT_FALSE(table->TakeBackgroundPlace(3));
  // A reload lowers the limit: held places stay until given back, and no
  // new one is taken until the count is under it.
  table->SetBackgroundLimit(1);
  EXPECT_FALSE(table->TakeBackgroundPlace(3));
  table->ReleaseBackgroundPlace(0);
  EXPECT_FALSE(table->TakeBackgroundPlace(3));
  table->ReleaseBackgroundPlace(2);
  EXPECT_TRUE(table->TakeBackgroundPlace(3));
}

// Worker processes that take places at once never hold more than the
// limit; a taker that died holding the lock is freed by the parent.
TEST(WorkerStatusTest, ProcessesTakingPlacesAtOnceHoldNoMoreThanTheLimit) {
  constexpr int kWorkers = 8;
  Result<WorkerStatusTable> table = WorkerStatusTable::CreateShared(kWorkers);
  ASSERT_TRUE(table.ok());
  table->SetBackgroundLimit(3);
  std::vector<pid_t> children;
  for (int n = 0; n < kWorkers; ++n) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int most = 0;
      for (int round = 0; round < 2000; ++round) {
        if (table->TakeBackgroundPlace(n)) {
          most = std::max(most, table->BackgroundPlacesInUse());
          table->ReleaseBackgroundPlace(n);
        }
      }
      _exit(most <= 3 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  }
  EXPECT_EQ(table->BackgroundPlacesInUse(), 0);

  // Slot 5 died between taking the lock and letting it go.
  table->slot(5).background_place.store(true);
  ASSERT_TRUE(table->HoldAdmissionLockForTesting(5));
  EXPECT_FALSE(table->TakeBackgroundPlace(0));  // gives up, safely
  table->ReleaseBackgroundPlace(5);             // the parent, at its exit
  EXPECT_TRUE(table->TakeBackgroundPlace(0));
}

}  // namespace
}  // namespace awc::obs
