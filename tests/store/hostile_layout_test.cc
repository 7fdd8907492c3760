// A file:// store laid out otherwise than the store writes it — a tenant's
// directory or a fan-out that is a symbolic link to another tenant's, a
// file or a FIFO where a directory belongs, a link at an object's key, a
// directory where an object belongs — and a store (or repair store) whose
// volume is unmounted under the running fleet, on the real daemon: no key
// leads out of its tenant, nothing live is deleted, an odd entry does not
// stop a reconciliation, and nothing is called damaged from a store that
// is not there (docs/store.md, "The file store's layout", "Store
// marker").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "store/file_store.h"
#include "tests/support/cas_fixture.h"
#include "tests/support/harness.h"

namespace awc::testing {
namespace {

namespace fs = std::filesystem;

// Every regular file under `dir` (the objects of a file:// store).
std::set<std::string> Files(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && !e.is_symlink()) out.insert(e.path().string());
  }
  return out;
}

class HostileLayoutTest : public ::testing::Test {
 protected:
  HostileLayoutTest() {
    db_.Migrate();
    EXPECT_TRUE(InitStore("file://" + root_.path()));
    auto st = store::NewFileStore(root_.path());
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(*st);
    cas_ = std::make_unique<CasFixture>(db_, *store_, "t1");
    snapshot_ = cas_->Snapshot(cas_->Tree(6, "t1"), "READY");
    cas_->AgeAll(86400);
    db_.Exec("INSERT INTO awc.tenants (id) VALUES ('t3'), ('t4')");
  }

  void StartDaemon(
      std::vector<std::pair<std::string, std::string>> extra = {}) {
    extra.push_back({"AWC_CAS_URL", "file://" + root_.path()});
    extra.push_back({"AWC_GC_GRACE_SECS", "0"});
    extra.push_back({"AWC_GC_CANARY_SIZE", "1"});
    daemon_ = std::make_unique<DaemonProcess>(FleetOptions(db_, 1, extra));
  }

  // Runs a job to its end; returns its state.
  std::string Run(const std::string& kind, const std::string& payload) {
    int64_t id = db_.Enqueue(kind, payload);
    last_job_ = id;
    EXPECT_TRUE(WaitUntil(
        [&] {
          std::string s = db_.JobState(id);
          return s == "COMPLETED" || s == "FAILED";
        },
        60))
        << kind << " job " << id << " is " << db_.JobState(id) << "\n"
        << daemon_->Stderr();
    return db_.JobState(id);
  }
  std::string Tenant(const std::string& tenant) {
    return "{\"tenant_id\": \"" + tenant + "\"}";
  }
  std::string Snapshot() {
    return "{\"snapshot_id\": " + std::to_string(snapshot_) + "}";
  }
  // A field of the last job's result.
  std::string Result(const std::string& field) {
    return db_.Scalar("SELECT result->>$2 FROM awc.jobs WHERE id = $1",
                      {std::to_string(last_job_), field});
  }
  int64_t Attempts() {
    return db_.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(last_job_)});
  }
  std::string SnapshotState() {
    return db_.Scalar("SELECT state FROM awc.snapshots WHERE id = $1",
                      {std::to_string(snapshot_)});
  }
  int64_t Damaged() {
    return db_.Int(
        "SELECT count(*) FROM awc.objects WHERE damaged_at IS NOT NULL");
  }
  // One of t1's fan-out directories that holds an object.
  std::string AFanout() {
    return fs::directory_iterator(root_.path() + "/t1/sha256")
        ->path()
        .filename()
        .string();
  }

  TestDatabase db_;
  TempDir root_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<CasFixture> cas_;
  int64_t snapshot_ = 0;
  int64_t last_job_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
};

// `ln -s t1 ROOT/t3`, and one fan-out of t4 linked to t1's: reconciling
// and collecting t3 and t4 registers and deletes nothing of t1's.
TEST_F(HostileLayoutTest, ALinkedDirectoryNeverLendsAnotherTenantsObjects) {
  std::set<std::string> before = Files(root_.path() + "/t1");
  ASSERT_EQ(before.size(), 6u + 2u);  // the files and the two manifests
  ASSERT_EQ(symlink("t1", (root_.path() + "/t3").c_str()), 0);
  std::string fanout = AFanout();
  fs::create_directories(root_.path() + "/t4/sha256");
  ASSERT_EQ(symlink(("../../t1/sha256/" + fanout).c_str(),
                    (root_.path() + "/t4/sha256/" + fanout).c_str()),
            0);
  StartDaemon();
  for (const char* tenant : {"t3", "t4"}) {
    SCOPED_TRACE(tenant);
    ASSERT_EQ(Run("store_reconcile", Tenant(tenant)), "COMPLETED");
    EXPECT_EQ(Result("objects"), "0");
    EXPECT_EQ(Result("orphans"), "0");
    EXPECT_EQ(Result("other_keys"), "1");
    ASSERT_EQ(Run("gc_sweep", Tenant(tenant)), "COMPLETED");
    EXPECT_EQ(Result("deleted"), "0");
  }
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE tenant_id <> "
                    "'t1'"),
            0);
  EXPECT_EQ(Files(root_.path() + "/t1"), before);
  ASSERT_EQ(Run("snapshot_scrub", Snapshot()), "COMPLETED");
  EXPECT_EQ(SnapshotState(), "READY");
}

// A fan-out that is a file, a FIFO or a link loop, "sha256" that is a
// file, a tenant's directory that is a file: other keys, and each
// reconciliation completes at its first attempt.
TEST_F(HostileLayoutTest, OddEntriesDoNotStopAReconciliation) {
  std::string base = root_.path() + "/t1/sha256/";
  std::vector<std::string> odd;
  for (const char* name : {"0a", "0b", "0c", "0d", "0e"}) {
    if (!fs::exists(base + name) && odd.size() < 3) odd.push_back(name);
  }
  std::ofstream(base + odd[0]) << "a file";
  ASSERT_EQ(mkfifo((base + odd[1]).c_str(), 0600), 0);
  ASSERT_EQ(symlink((base + odd[2]).c_str(), (base + odd[2]).c_str()), 0);
  fs::create_directories(root_.path() + "/t3");
  std::ofstream(root_.path() + "/t3/sha256") << "x";
  std::ofstream(root_.path() + "/t4") << "x";
  StartDaemon();
  ASSERT_EQ(Run("store_reconcile", Tenant("t1")), "COMPLETED")
      << db_.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                    {std::to_string(last_job_)});
  EXPECT_EQ(Attempts(), 1);
  EXPECT_EQ(Result("objects"), "8");
  EXPECT_EQ(Result("missing"), "0");
  EXPECT_EQ(Result("other_keys"), "3");
  for (const char* tenant : {"t3", "t4"}) {
    SCOPED_TRACE(tenant);
    ASSERT_EQ(Run("store_reconcile", Tenant(tenant)), "COMPLETED");
    EXPECT_EQ(Attempts(), 1);
    EXPECT_EQ(Result("other_keys"), "1");
  }
  EXPECT_EQ(SnapshotState(), "READY");
}

// A link at an object's key, to an old unrelated file or to nothing, is
// not an object: never registered, never later "missing".
TEST_F(HostileLayoutTest, ALinkAtAKeyIsNotAnObject) {
  std::string old = root_.path() + "/unrelated";
  std::ofstream(old) << "an old file that is no object";
  std::string hex(64, 'a');
  std::string dangling(64, 'b');
  fs::create_directories(root_.path() + "/t3/sha256/aa");
  fs::create_directories(root_.path() + "/t3/sha256/bb");
  ASSERT_EQ(
      symlink(old.c_str(), (root_.path() + "/t3/sha256/aa/" + hex).c_str()), 0);
  ASSERT_EQ(symlink("/nonexistent",
                    (root_.path() + "/t3/sha256/bb/" + dangling).c_str()),
            0);
  StartDaemon();
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Run("store_reconcile", Tenant("t3")), "COMPLETED");
    EXPECT_EQ(Result("orphans"), "0");
    EXPECT_EQ(Result("missing"), "0");
    EXPECT_EQ(Result("other_keys"), "2");
  }
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.objects WHERE tenant_id = 't3'"),
            0);
}

// A directory where a live object belongs, with a repair store that has
// the object: the object is missing and cannot be written back there
// (`blocked`); the reconciliation completes and says so.
TEST_F(HostileLayoutTest, ADirectoryAtALiveKeyIsDamageNotAnEndlessRetry) {
  TempDir replica;
  ASSERT_TRUE(InitStore("file://" + replica.path()));
  fs::copy(root_.path() + "/t1", replica.path() + "/t1",
           fs::copy_options::recursive);
  std::string fanout = AFanout();
  std::string dir = root_.path() + "/t1/sha256/" + fanout;
  std::string victim = fs::directory_iterator(dir)->path().string();
  fs::remove(victim);
  fs::create_directories(victim + "/inside");
  StartDaemon({{"AWC_CAS_REPAIR_URL", "file://" + replica.path()}});
  ASSERT_EQ(Run("store_reconcile", Tenant("t1")), "COMPLETED")
      << db_.Scalar("SELECT last_error FROM awc.jobs WHERE id = $1",
                    {std::to_string(last_job_)});
  EXPECT_EQ(Attempts(), 1);
  EXPECT_EQ(Result("missing"), "1");
  EXPECT_EQ(Result("repaired"), "0");
  EXPECT_EQ(Result("other_keys"), "1");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'object.repair_failed' AND data->>'result' = 'blocked'"),
            1);
  EXPECT_TRUE(fs::is_directory(victim + "/inside"));
}

// The store's volume unmounted under the running fleet (an empty mount
// point): a scrub and a reconciliation retry, and nothing is called
// missing; mounted again, both complete and the snapshot is READY.
TEST_F(HostileLayoutTest, AnUnmountedStoreDegradesNothing) {
  StartDaemon();
  // The worker has its store open (it checks the marker then).
  ASSERT_EQ(Run("snapshot_scrub", Snapshot()), "COMPLETED");
  std::string volume = root_.path() + ".volume";
  fs::rename(root_.path(), volume);
  fs::create_directory(root_.path());
  int64_t scrub = db_.Enqueue("snapshot_scrub", Snapshot());
  int64_t reconcile = db_.Enqueue("store_reconcile", Tenant("t1"));
  auto tried = [&](int64_t id) {
    return db_.Scalar(
        "SELECT state || ':' || attempts FROM awc.jobs WHERE id = $1",
        {std::to_string(id)});
  };
  ASSERT_TRUE(WaitUntil([&] {
    return tried(scrub) == "PENDING:1" && tried(reconcile) == "PENDING:1";
  })) << tried(scrub)
      << " " << tried(reconcile) << "\n"
      << daemon_->Stderr();
  std::string error = db_.Scalar(
      "SELECT last_error FROM awc.jobs WHERE id = $1", {std::to_string(scrub)});
  EXPECT_NE(error.find("is not there"), std::string::npos) << error;
  EXPECT_EQ(SnapshotState(), "READY");
  EXPECT_EQ(Damaged(), 0);
  EXPECT_TRUE(fs::is_empty(root_.path())) << "written into the mount point";

  fs::remove(root_.path());
  fs::rename(volume, root_.path());
  db_.Exec("UPDATE awc.jobs SET run_at = now() WHERE state = 'PENDING'");
  ASSERT_TRUE(WaitUntil([&] {
    return db_.JobState(scrub) == "COMPLETED" &&
           db_.JobState(reconcile) == "COMPLETED";
  })) << daemon_->Stderr();
  EXPECT_EQ(SnapshotState(), "READY");
  EXPECT_EQ(Damaged(), 0);
  last_job_ = reconcile;
  EXPECT_EQ(Result("missing"), "0");
}

// The repair store's volume unmounted: a scrub that finds an object lost
// cannot tell whether the replica has it, so it retries; it does not
// record the object `absent` nor degrade the snapshot. Mounted again, the
// object is repaired.
TEST_F(HostileLayoutTest, AnUnmountedRepairStoreIsNotAnAbsentCopy) {
  TempDir replica;
  ASSERT_TRUE(InitStore("file://" + replica.path()));
  fs::copy(root_.path() + "/t1", replica.path() + "/t1",
           fs::copy_options::recursive);
  StartDaemon({{"AWC_CAS_REPAIR_URL", "file://" + replica.path()}});
  ASSERT_EQ(Run("snapshot_scrub", Snapshot()), "COMPLETED");
  std::string volume = replica.path() + ".volume";
  fs::rename(replica.path(), volume);
  fs::create_directory(replica.path());
  std::string fanout = AFanout();
  fs::remove(
      fs::directory_iterator(root_.path() + "/t1/sha256/" + fanout)->path());
  int64_t scrub = db_.Enqueue("snapshot_scrub", Snapshot());
  ASSERT_TRUE(WaitUntil([&] {
    return db_.Int("SELECT attempts FROM awc.jobs WHERE id = $1",
                   {std::to_string(scrub)}) >= 1 &&
           db_.JobState(scrub) == "PENDING";
  })) << daemon_->Stderr();
  EXPECT_EQ(SnapshotState(), "READY");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'object.repair_failed'"),
            0);

  fs::remove(replica.path());
  fs::rename(volume, replica.path());
  db_.Exec("UPDATE awc.jobs SET run_at = now() WHERE state = 'PENDING'");
  ASSERT_TRUE(WaitUntil([&] { return db_.JobState(scrub) == "COMPLETED"; }))
      << daemon_->Stderr();
  EXPECT_EQ(SnapshotState(), "READY");
  EXPECT_EQ(db_.Int("SELECT count(*) FROM awc.audit_events WHERE event = "
                    "'object.repaired'"),
            1);
}

}  // namespace
}  // namespace awc::testing
