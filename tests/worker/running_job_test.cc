// The lease of a job is renewed while one large object is read, not only
// between the reads of a closure walk: on the real daemon over file://. A
// handler that outlives its lease commits nothing once its job was taken
// away.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

// 1 GiB of zeros (a sparse file) and its digest: reading and hashing it
// takes seconds, many times the 1 s lease of the test.
constexpr uint64_t kZerosSize = 1ULL << 30;
constexpr const char* kZerosDigest =
    "sha256:49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14";

TEST(LeaseRenewalTest, ALongSingleObjectReadKeepsItsLease) {
  TestDatabase db;
  db.Migrate();
  TempDir root;
  ASSERT_TRUE(InitStore("file://" + root.path()));
  auto store = store::NewFileStore(root.path());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  CasFixture cas(db, **store, "t1");
  std::string hex = std::string(kZerosDigest).substr(7);
  std::string dir = root.path() + "/t1/sha256/" + hex.substr(0, 2);
  root.Write("t1/sha256/" + hex.substr(0, 2) + "/.keep", "");
  std::string path = dir + "/" + hex;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kZerosSize)), 0);
  close(fd);
  std::string manifest = R"({"format":"awc-manifest/1","entries":[)"
                         R"({"name":"zeros","kind":"blob","digest":")" +
                         std::string(kZerosDigest) + R"(","size":)" +
                         std::to_string(kZerosSize) + "}]}";
  int64_t snap = cas.Snapshot(cas.RawObject(manifest));

  // Two workers: the idle one reclaims the job as soon as its lease ends.
  DaemonProcess daemon(FleetOptions(db, 2,
                                    {{"AWC_CAS_URL", "file://" + root.path()},
                                     {"AWC_WORKER_LEASE_SECS", "1"}}));
  int64_t job = db.Enqueue("snapshot_validate",
                           "{\"snapshot_id\": " + std::to_string(snap) + "}");
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::string s = db.JobState(job);
        return s == "COMPLETED" || s == "FAILED";
      },
      180))
      << daemon.Stderr();
  EXPECT_EQ(db.JobState(job), "COMPLETED") << db.Scalar(
      "SELECT last_error FROM awc.jobs WHERE id = $1", {std::to_string(job)});
  EXPECT_EQ(db.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(job)}),
            1);
  EXPECT_EQ(db.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snap)}),
            "READY");
  for (const JsonPtr& e : daemon.Events()) {
    EXPECT_NE(Str(e.get(), "reason"), "lease_expired") << daemon.Stderr();
  }
}

TEST(LeaseRenewalTest, AHandlerThatOutlivesItsLeaseCommitsNothing) {
  TestDatabase db;
  db.Migrate();
  db.Exec("CREATE SCHEMA awc_test");
  db.Exec(
      "CREATE TABLE awc_test.effects (job_id bigint NOT NULL, lease_token "
      "bigint NOT NULL, attempt integer NOT NULL, at timestamptz NOT NULL)");
  // Two workers and a 1 s lease: the first run stalls for 6 s without
  // renewing, the idle worker reclaims the job and runs it again, and then
  // the stalled run wakes up and writes its effect.
  DaemonProcess daemon(FleetOptions(db, 2, {{"AWC_WORKER_LEASE_SECS", "1"}}));
  int64_t job = db.Enqueue("test_stalled_effect", R"({"ms": 6000})");
  std::string id = "job_" + std::to_string(job);
  auto stalled_run_ended = [&] {
    for (const JsonPtr& e : daemon.Events()) {
      if (Str(e.get(), "id") == id &&
          json_is_true(json_object_get(e.get(), "discarded"))) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(WaitUntil(stalled_run_ended, 120)) << daemon.Stderr();
  EXPECT_EQ(db.JobState(job), "COMPLETED");
  // Only the second run's effect: the first one's transaction was refused
  // by the fence, its job no longer being RUNNING under its claim.
  EXPECT_EQ(db.Int("SELECT count(*) FROM awc_test.effects"), 1);
  EXPECT_EQ(db.Int("SELECT min(attempt) FROM awc_test.effects"), 2);
}

}  // namespace
}  // namespace awc::testing
