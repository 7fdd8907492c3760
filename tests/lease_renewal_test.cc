// The lease of a job is renewed while one large object is read, not only
// between the reads of a closure walk: on the real daemon over file://.
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

}  // namespace
}  // namespace awc::testing
