// Store objects that are not what a file:// store writes — a directory, a
// FIFO, a symbolic link (to a device, or in a loop), a file far longer than
// its manifest says — on the real daemon: each is a verdict about the data,
// found without blocking a worker, and never retried.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

namespace fs = std::filesystem;

struct Hostile {
  const char* name;
  // Replaces the object file at `path` with the hostile thing.
  std::function<void(const std::string& path)> make;
  const char* code;  // the verdict
};

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

const Hostile kHostile[] = {
    {"directory", [](const std::string& p) { fs::create_directory(p); },
     "invalid_object"},
    {"fifo", [](const std::string& p) { mkfifo(p.c_str(), 0600); },
     "invalid_object"},
    {"symlink_to_dev_zero",
     [](const std::string& p) { (void)symlink("/dev/zero", p.c_str()); },
     "invalid_object"},
    {"symlink_loop",
     [](const std::string& p) { (void)symlink(p.c_str(), p.c_str()); },
     "invalid_object"},
    {"file_longer_than_declared",
     [](const std::string& p) {
       // 1 TiB (sparse) where the manifest declares 5 bytes.
       int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
       if (fd >= 0) {
         (void)!ftruncate(fd, static_cast<off_t>(1ULL << 40));
         close(fd);
       }
     },
     "size_mismatch"},
};

class HostileObjectTest : public ::testing::TestWithParam<Hostile> {
 protected:
  HostileObjectTest() {
    db_.Migrate();
    EXPECT_TRUE(InitStore("file://" + root_.path()));
    auto st = store::NewFileStore(root_.path());
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(*st);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    blob_ = cas_->Blob("hello");
    snapshot_ = cas_->Snapshot(cas_->Manifest({cas_->E("x", blob_)}));
  }

  // Puts the hostile thing where the blob's file is.
  void Spoil() {
    std::string hex = blob_.substr(7);
    std::string path =
        root_.path() + "/t1/sha256/" + hex.substr(0, 2) + "/" + hex;
    ASSERT_TRUE(fs::remove(path));
    GetParam().make(path);
    ASSERT_TRUE(fs::exists(fs::symlink_status(path)));
  }

  void StartDaemon() {
    daemon_ = std::make_unique<DaemonProcess>(
        FleetOptions(db_, 1, {{"AWC_CAS_URL", "file://" + root_.path()}}));
  }

  // Runs one job of `kind` on the snapshot; returns its final state.
  std::string RunJob(const std::string& kind) {
    int64_t id = db_.Enqueue(
        kind, "{\"snapshot_id\": " + std::to_string(snapshot_) + "}");
    job_ = id;
    EXPECT_TRUE(WaitUntil(
        [&] {
          std::string s = db_.JobState(id);
          return s == "COMPLETED" || s == "FAILED";
        },
        60))
        << "job " << id << " is " << db_.JobState(id) << "\n"
        << daemon_->Stderr();
    return db_.JobState(id);
  }

  std::string Snap(const std::string& column) {
    return db_.Scalar("SELECT " + column + " FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snapshot_)});
  }

  // The worker is not stuck: the fleet stops when asked.
  void ExpectCleanStop() {
    daemon_->Signal(SIGTERM);
    std::optional<int> st = daemon_->WaitExit(30);
    ASSERT_TRUE(st.has_value()) << "the daemon did not stop";
    EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << *st;
  }

  TestDatabase db_;
  TempDir root_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CasFixture> cas_;
  std::string blob_;
  int64_t snapshot_ = 0;
  int64_t job_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_P(HostileObjectTest, ValidationFailsTheSnapshotAtTheFirstAttempt) {
  Spoil();
  StartDaemon();
  EXPECT_EQ(RunJob("snapshot_validate"), "COMPLETED");
  EXPECT_EQ(db_.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                    {std::to_string(job_)}),
            1);
  EXPECT_EQ(Snap("state"), "FAILED");
  EXPECT_EQ(Snap("failure->>'code'"), GetParam().code);
  EXPECT_EQ(Snap("failure->>'digest'"), blob_);
  ExpectCleanStop();
}

TEST_P(HostileObjectTest, ScrubDegradesTheSnapshotAtTheFirstAttempt) {
  StartDaemon();
  ASSERT_EQ(RunJob("snapshot_validate"), "COMPLETED");
  ASSERT_EQ(Snap("state"), "READY");
  Spoil();
  EXPECT_EQ(RunJob("snapshot_scrub"), "COMPLETED");
  EXPECT_EQ(db_.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                    {std::to_string(job_)}),
            1);
  EXPECT_EQ(Snap("state"), "DEGRADED");
  EXPECT_EQ(Snap("failure->'bad_digests'->>0"), blob_);
  ExpectCleanStop();
}

INSTANTIATE_TEST_SUITE_P(Objects, HostileObjectTest,
                         ::testing::ValuesIn(kHostile),
                         [](const ::testing::TestParamInfo<Hostile>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace awc::testing
