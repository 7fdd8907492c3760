// Background work never holds every worker of a host (docs/queue.md,
// "Background work"): on the real daemon with a file:// store, scrubs held
// back by the host's read budget take at most
// AWC_WORKER_BACKGROUND_CONCURRENCY workers, and a validation enqueued
// behind them is done before any of them, where one queue in run_at order
// would have made it wait for them. And where a worker has to choose, the
// validation's priority comes before the older scrubs' ("Priorities").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

class DaemonBackgroundTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InitStore("file://" + dir_.path()));
    auto store = store::NewFileStore(dir_.path());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    // 128 objects of 256 KiB: at 1 MB/s a scrub reads for half a minute.
    std::vector<CasFixture::Entry> entries;
    for (int i = 0; i < 128; ++i) {
      entries.push_back(
          cas_->E("f" + std::to_string(1000 + i),
                  cas_->Blob(std::string(256 * 1024, 'a' + i % 26) +
                             std::to_string(i))));
    }
    big_ = cas_->Snapshot(cas_->Manifest(entries));
  }
  // Validated by the fleet, so that its scrubs read its recorded closure
  // at the budget's pace.
  void ValidateBig(const DaemonProcess& fleet) {
    int64_t id = db_.Enqueue("snapshot_validate",
                             "{\"snapshot_id\": " + std::to_string(big_) + "}");
    ASSERT_TRUE(WaitUntil([&] { return db_.JobState(id) == "COMPLETED"; }))
        << fleet.Stderr();
  }

  std::unique_ptr<DaemonProcess> Fleet(int workers, const std::string& places) {
    std::vector<std::pair<std::string, std::string>> env = {
        {"AWC_CAS_URL", "file://" + dir_.path()},
        {"AWC_SCRUB_BUDGET_MB_PER_SEC", "1"}};
    if (!places.empty()) {
      env.emplace_back("AWC_WORKER_BACKGROUND_CONCURRENCY", places);
    }
    return std::make_unique<DaemonProcess>(FleetOptions(db_, workers, env));
  }
  std::vector<int64_t> Scrubs(int n) {
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) {
      ids.push_back(db_.Enqueue(
          "snapshot_scrub", "{\"snapshot_id\": " + std::to_string(big_) + "}"));
    }
    return ids;
  }
  int64_t ScrubsIn(const std::string& state) {
    return db_.Int(
        "SELECT count(*) FROM awc.jobs WHERE kind = 'snapshot_scrub' AND "
        "state = $1",
        {state});
  }
  // A small snapshot, imported after the scrubs: its validation's job.
  int64_t SmallValidation() {
    std::string root = cas_->Manifest({cas_->E("a", cas_->Blob("a")),
                                       cas_->E("b", cas_->Blob("b")),
                                       cas_->E("c", cas_->Blob("c"))});
    int64_t snap = cas_->Snapshot(root);
    return db_.Enqueue("snapshot_validate",
                       "{\"snapshot_id\": " + std::to_string(snap) + "}");
  }
  // Enqueues a small snapshot's validation and waits for it; `most`: the
  // most scrubs seen RUNNING at once meanwhile.
  bool SmallValidationDone(const DaemonProcess& fleet, int64_t* most) {
    int64_t validation = SmallValidation();
    bool done = WaitUntil([&] {
      *most = std::max(*most, ScrubsIn("RUNNING"));
      return db_.JobState(validation) == "COMPLETED";
    });
    if (!done) ADD_FAILURE() << fleet.Stderr();
    return done;
  }
  // Ends the test without waiting half a minute per scrub: a cancel
  // reaches a running scrub at its next checkpoint.
  void CancelScrubs() {
    db_.Exec(
        "UPDATE awc.jobs SET state = 'CANCELLED' WHERE kind = "
        "'snapshot_scrub' AND state IN ('PENDING', 'RUNNING')");
  }

  TestDatabase db_;
  TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CasFixture> cas_;
  int64_t big_ = 0;
};

// Two workers, the default: one may scrub, the other keeps to the rest.
TEST_F(DaemonBackgroundTest, AValidationOvertakesQueuedScrubs) {
  auto fleet = Fleet(2, "");
  ValidateBig(*fleet);
  std::vector<int64_t> scrubs = Scrubs(4);
  ASSERT_GT(fleet->ChildRunning(scrubs[0]), 0) << fleet->Stderr();
  int64_t most_running = 0;
  ASSERT_TRUE(SmallValidationDone(*fleet, &most_running));
  EXPECT_EQ(ScrubsIn("COMPLETED"), 0);  // it did not wait for them
  EXPECT_EQ(most_running, 1);
  EXPECT_EQ(ScrubsIn("RUNNING") + ScrubsIn("PENDING"), 4);
  // The startup event says how many places the host has.
  auto started = fleet->EventsWith("awc-worker starting");
  ASSERT_EQ(started.size(), 1u) << fleet->Stderr();
  EXPECT_EQ(json_integer_value(
                json_object_get(started[0].get(), "background_places")),
            1);
  CancelScrubs();
}

// Set to 2 of 3 workers: two scrub at once, the third stays free.
TEST_F(DaemonBackgroundTest, TheSettingIsHowManyWorkersMayScrubAtOnce) {
  auto fleet = Fleet(3, "2");
  ValidateBig(*fleet);
  Scrubs(4);
  ASSERT_TRUE(WaitUntil([&] { return ScrubsIn("RUNNING") == 2; }))
      << fleet->Stderr();
  int64_t most_running = 0;
  ASSERT_TRUE(SmallValidationDone(*fleet, &most_running));
  EXPECT_EQ(ScrubsIn("COMPLETED"), 0);
  EXPECT_EQ(most_running, 2);
  EXPECT_EQ(ScrubsIn("PENDING"), 2);
  CancelScrubs();
}

// One worker, which may scrub: it is busy with a scrub when the
// validation is enqueued, and when that scrub ends it takes the
// validation, priority 2, before the three older scrubs, priority 7. In
// run_at order it would have read a whole scrub (half a minute) first.
TEST_F(DaemonBackgroundTest, AFreedWorkerTakesTheValidationBeforeOlderScrubs) {
  auto fleet = Fleet(1, "");
  ValidateBig(*fleet);
  std::vector<int64_t> scrubs = Scrubs(4);
  ASSERT_GT(fleet->ChildRunning(scrubs[0]), 0) << fleet->Stderr();
  int64_t validation = SmallValidation();
  db_.Exec("UPDATE awc.jobs SET state = 'CANCELLED' WHERE id = $1",
           {std::to_string(scrubs[0])});
  ASSERT_TRUE(
      WaitUntil([&] { return db_.JobState(validation) == "COMPLETED"; }))
      << fleet->Stderr();
  EXPECT_EQ(ScrubsIn("COMPLETED"), 0);
  // None of the three was claimed before the validation ended: a claim's
  // lease token is the database clock in microseconds times 1024.
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.jobs s, awc.jobs v "
                    "WHERE v.id = $1 AND s.kind = 'snapshot_scrub' "
                    "AND s.id <> $2 AND s.lease_token IS NOT NULL AND "
                    "s.lease_token / 1024 < "
                    "extract(epoch FROM v.finished_at) * 1000000",
                    {std::to_string(validation), std::to_string(scrubs[0])}),
            0);
  CancelScrubs();
}

}  // namespace
}  // namespace awc::testing
