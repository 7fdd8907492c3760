// A GC epoch interrupted by a real crash: the worker process is killed
// (SIGKILL) after the store deleted a batch and before its rows were
// removed; the shipped gc_sweep of another worker resumes the epoch.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"

namespace awc::testing {
namespace {

TEST(GcCrashTest, AKilledSweepIsResumedByTheNextOne) {
  TestDatabase db;
  TempDir dir;
  ASSERT_TRUE(InitStore("file://" + dir.path()));
  auto store = store::NewFileStore(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().message();
  CasFixture cas(db, **store, "t1");
  std::vector<std::string> garbage;
  for (int i = 0; i < 12; ++i)
    garbage.push_back(cas.Blob("junk " + std::to_string(i)));
  std::string live = cas.Blob("live");
  int64_t snap = cas.Snapshot(live, "READY");
  db.Exec(
      "INSERT INTO awc.snapshot_objects (snapshot_id, digest) VALUES ($1, $2)",
      {std::to_string(snap), live});
  cas.AgeAll(7200);

  DaemonProcess d(FleetOptions(db, 1,
                               {{"AWC_CAS_URL", "file://" + dir.path()},
                                {"AWC_GC_GRACE_SECS", "3600"},
                                {"AWC_GC_CANARY_SIZE", "4"},
                                {"AWC_WORKER_LEASE_SECS", "2"}}));
  ASSERT_TRUE(d.WaitForEvent("worker started"));
  db.Enqueue("test_gc_crash", R"({"tenant_id": "t1"})", 1);
  ASSERT_TRUE(d.WaitForEvent("worker exited")) << d.Stderr();
  auto exits = d.EventsWith("worker exited");
  EXPECT_EQ(Str(exits[0].get(), "signal"), "KILL");

  // What the crash left: the canary batch gone from the store, its rows
  // still DELETING, the epoch open.
  auto on_disk = [&](const std::string& digest) {
    std::string hex = digest.substr(7);
    struct stat st;
    return stat((dir.path() + "/t1/sha256/" + hex.substr(0, 2) + "/" + hex)
                    .c_str(),
                &st) == 0;
  };
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.objects WHERE state = 'DELETING'"),
            4);
  int missing = 0;
  for (const auto& g : garbage) missing += on_disk(g) ? 0 : 1;
  EXPECT_EQ(missing, 4);
  EXPECT_EQ(db.Scalar("SELECT state FROM awc.gc_epochs"), "PLANNED");

  // Once the dead sweeper's lock has expired, the real handler resumes.
  ASSERT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.gc_locks WHERE expires_at > now()") ==
           0;
  }));
  int64_t job = db.Enqueue("gc_sweep", R"({"tenant_id": "t1"})");
  ASSERT_TRUE(WaitUntil([&] { return db.JobState(job) == "COMPLETED"; }))
      << d.Stderr();
  EXPECT_EQ(
      db.Scalar("SELECT result->>'resumed' || '/' || (result->>'deleted') "
                "FROM awc.jobs WHERE id = $1",
                {std::to_string(job)}),
      "true/12");
  EXPECT_EQ(db.Scalar("SELECT state || '/' || deleted_count || '/' || "
                      "canary_verified FROM awc.gc_epochs"),
            "COMPLETED/12/true");
  for (const auto& g : garbage) EXPECT_FALSE(on_disk(g)) << g;
  EXPECT_TRUE(on_disk(live));
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc.objects"), 1);
}

}  // namespace
}  // namespace awc::testing
