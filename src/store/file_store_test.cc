#include "store/file_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "digest/sha256.h"
#include "store/store_conformance.h"
#include "testing/fault_env.h"

namespace awc::store {
namespace {

namespace fs = std::filesystem;
using storetest::Fetch;
using storetest::Fetched;
using storetest::KeyFor;
using storetest::Pattern;
using storetest::ScopedTempDir;
using Op = FaultEnv::Op;

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  return out;
}

// Every path under `root` whose name starts with ".tmp-".
std::vector<std::string> TempFiles(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename().string().starts_with(".tmp-")) {
      out.push_back(e.path().string());
    }
  }
  return out;
}

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/root";
    fs::create_directory(root_);
    Result<std::unique_ptr<ObjectStore>> store = NewFileStore(root_, &env_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  std::map<std::string, uint64_t> List(const std::string& tenant) {
    std::map<std::string, uint64_t> out;
    Status s = store_->List(tenant, "", [&](const ObjectStore::ListedKey& k) {
      if (!k.digest.empty()) out[k.digest] = k.size;
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  // The names List() reports that are not objects'.
  std::set<std::string> Others(const std::string& tenant) {
    std::set<std::string> out;
    Status s = store_->List(tenant, "", [&](const ObjectStore::ListedKey& k) {
      if (k.digest.empty()) out.insert(k.name);
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  ScopedTempDir tmp_;
  FaultEnv env_{Env::Default()};
  std::string root_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_F(FileStoreTest, LayoutOnDisk) {
  ObjectKey key = KeyFor("tenant-1", "hello");
  ASSERT_TRUE(store_->Put(key, "hello").ok());
  std::string hex = key.digest.substr(7);
  std::string dir = root_ + "/tenant-1/sha256/" + hex.substr(0, 2);
  EXPECT_EQ(*Env::Default()->ReadFile(dir + "/" + hex), "hello");
  EXPECT_EQ(Names(dir), std::vector<std::string>{hex});
  EXPECT_EQ(fs::status(root_ + "/tenant-1").type(), fs::file_type::directory);
}

TEST_F(FileStoreTest, NoTempFilesRemainAfterWrites) {
  ScopedTempDir src;
  std::string path = src.path() + "/f";
  std::string file_data = Pattern(600 * kKiB, 9);
  std::ofstream(path, std::ios::binary) << file_data;
  for (int i = 0; i < 10; ++i) {
    std::string data = Pattern(static_cast<size_t>(i) * 7000, i);
    ASSERT_TRUE(store_->Put(KeyFor("t", data), data).ok());
  }
  ASSERT_TRUE(store_->PutFile(KeyFor("t", file_data), path).ok());
  EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
  EXPECT_EQ(List("t").size(), 11u);
}

struct Fault {
  Op op;
  int n;  // which call of `op` during the failing write
  int err;
  const char* name;
};

void PrintTo(const Fault& f, std::ostream* os) { *os << f.name; }

class FileStoreFaultTest : public FileStoreTest,
                           public ::testing::WithParamInterface<Fault> {};

// A write that fails at any step leaves no object, no temporary file, and
// the previous object at the key (if any) intact.
TEST_P(FileStoreFaultTest, FailedWriteLeavesNoTrace) {
  const Fault& f = GetParam();
  std::string old_data = Pattern(1 * kMiB + 100, 1);
  std::string new_data = Pattern(1 * kMiB, 2);
  ObjectKey existing = KeyFor("t", old_data);
  ObjectKey fresh = KeyFor("t", new_data);
  ASSERT_TRUE(store_->Put(existing, old_data).ok());
  // PutFile stores only what hashes to the key: a source file for each.
  ScopedTempDir src;
  std::map<std::string, std::string> source = {
      {existing.digest, src.path() + "/old"},
      {fresh.digest, src.path() + "/new"}};
  std::ofstream(source[existing.digest], std::ios::binary) << old_data;
  std::ofstream(source[fresh.digest], std::ios::binary) << new_data;

  // Directories are created only for a new fan-out directory.
  ASSERT_NE(existing.digest.substr(7, 2), fresh.digest.substr(7, 2));

  for (const ObjectKey& key : {existing, fresh}) {
    for (bool from_file : {false, true}) {
      // Put neither reads nor appends more than once.
      if (!from_file &&
          (f.op == Op::kRead || (f.op == Op::kAppend && f.n > 1))) {
        continue;
      }
      if (key == existing && f.op == Op::kCreateDirs) continue;
      SCOPED_TRACE(std::string(key == fresh ? "new key" : "existing key") +
                   (from_file ? ", PutFile" : ", Put"));
      env_.FailNth(f.op, f.n, f.err);
      Status s = from_file ? store_->PutFile(key, source[key.digest])
                           : store_->Put(key, new_data);
      ASSERT_EQ(env_.injected(), 1);
      EXPECT_EQ(s.code(), Status::Code::kIoError) << s.ToString();
      EXPECT_NE(s.message().find(key.digest), std::string::npos) << s.message();
      if (f.err == ENOSPC || f.err == EDQUOT) {
        EXPECT_NE(s.message().find("disk full"), std::string::npos)
            << s.message();
      }
      env_.Reset();
      EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
      EXPECT_TRUE(store_->Head(fresh).status().IsNotFound());
      Fetched got = Fetch(store_.get(), existing);
      ASSERT_TRUE(got.status.ok()) << got.status.ToString();
      EXPECT_TRUE(got.data == old_data) << "previous object damaged";
      EXPECT_EQ(List("t"), (std::map<std::string, uint64_t>{
                               {existing.digest, old_data.size()}}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FileStoreFaultTest,
    ::testing::Values(Fault{Op::kNewWritableFile, 1, ENOSPC, "Create"},
                      Fault{Op::kAppend, 1, ENOSPC, "AppendFirstNoSpace"},
                      Fault{Op::kAppend, 3, EDQUOT, "AppendThirdQuota"},
                      Fault{Op::kAppend, 1, EIO, "AppendEio"},
                      Fault{Op::kRead, 2, EIO, "ReadSourceEio"},
                      Fault{Op::kSync, 1, EIO, "SyncEio"},
                      Fault{Op::kSync, 1, ENOSPC, "SyncNoSpace"},
                      Fault{Op::kClose, 1, EIO, "CloseEio"},
                      Fault{Op::kRenameFile, 1, EIO, "RenameEio"},
                      Fault{Op::kCreateDirs, 1, EACCES, "CreateDirs"}),
    [](const ::testing::TestParamInfo<Fault>& p) {
      return std::string(p.param.name);
    });

// When even the clean-up fails, the leftover temporary file stays invisible.
TEST_F(FileStoreTest, UnremovableTempFileIsIgnored) {
  ObjectKey key = KeyFor("t", "data");
  env_.FailNth(Op::kAppend, 1, ENOSPC);
  env_.FailNth(Op::kRemoveFile, 1, EIO);
  EXPECT_FALSE(store_->Put(key, "data").ok());
  env_.Reset();
  EXPECT_EQ(TempFiles(root_).size(), 1u);
  EXPECT_TRUE(List("t").empty());
  EXPECT_TRUE(store_->Head(key).status().IsNotFound());
  ASSERT_TRUE(store_->Put(key, "data").ok());
  EXPECT_EQ(List("t"), (std::map<std::string, uint64_t>{{key.digest, 4}}));
}

TEST_F(FileStoreTest, DirectorySyncFailureAfterRenameLeavesWholeObject) {
  ObjectKey key = KeyFor("t", "data");
  // Leaves the directories in place, so the one SyncDir is after the rename.
  ASSERT_TRUE(store_->Put(key, "data").ok());
  ASSERT_TRUE(store_->DeleteMany({key}).ok());
  ASSERT_TRUE(store_->Head(key).status().IsNotFound());
  env_.FailNth(Op::kSyncDir, 1, EIO);
  Status s = store_->Put(key, "data");
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(env_.injected(), 1);
  Fetched got = Fetch(store_.get(), key);
  ASSERT_TRUE(got.status.ok());
  EXPECT_EQ(got.data, "data");
  EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
}

TEST_F(FileStoreTest, ReadErrorDuringGetIsPermanentIoError) {
  std::string data = Pattern(200 * kKiB, 5);
  ObjectKey key = KeyFor("t", data);
  ASSERT_TRUE(store_->Put(key, data).ok());
  env_.FailNth(Op::kRead, 2, EIO);
  Fetched got = Fetch(store_.get(), key);
  EXPECT_EQ(got.status.code(), Status::Code::kIoError) << got.status.ToString();
  EXPECT_NE(got.status.message().find("Input/output error"), std::string::npos);
  EXPECT_EQ(got.chunk_sizes, std::vector<size_t>{64 * kKiB});
}

TEST_F(FileStoreTest, DeleteReportsErrorsPerKey) {
  ObjectKey a = KeyFor("t", "a"), b = KeyFor("t", "b");
  ASSERT_TRUE(store_->Put(a, "a").ok());
  ASSERT_TRUE(store_->Put(b, "b").ok());
  env_.FailNth(Op::kRemoveFile, 1, EIO);
  Result<std::vector<Status>> r = store_->DeleteMany({a, b});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].code(), Status::Code::kIoError);
  EXPECT_NE((*r)[0].message().find(a.digest), std::string::npos);
  EXPECT_TRUE((*r)[1].ok());
  EXPECT_TRUE(store_->Head(a).ok());
  EXPECT_TRUE(store_->Head(b).status().IsNotFound());
}

TEST_F(FileStoreTest, DeletionsAreMadeDurableBeforeReturning) {
  ObjectKey a = KeyFor("t", "a"), b = KeyFor("t", "b");
  ASSERT_TRUE(store_->Put(a, "a").ok());
  ASSERT_TRUE(store_->Put(b, "b").ok());
  int before = env_.calls(Op::kSyncDir);
  Result<std::vector<Status>> r = store_->DeleteMany({a, b});
  ASSERT_TRUE(r.ok());
  // One fsync per directory that lost an object (a and b differ in fan-out
  // here, so two).
  EXPECT_EQ(env_.calls(Op::kSyncDir) - before,
            a.digest.substr(7, 2) == b.digest.substr(7, 2) ? 1 : 2);
  // A failed fsync fails the call: the caller must not forget objects whose
  // removal may not survive a crash.
  ASSERT_TRUE(store_->Put(a, "a").ok());
  env_.FailNth(Op::kSyncDir, 1, EIO);
  Result<std::vector<Status>> failed = store_->DeleteMany({a});
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), Status::Code::kIoError);
  // A directory that went away meanwhile (an unmounted volume) is not a
  // missing object, nor a missing subject: the call is to be tried again.
  ASSERT_TRUE(store_->Put(a, "a").ok());
  env_.FailNth(Op::kSyncDir, 1, ENOENT);
  failed = store_->DeleteMany({a});
  EXPECT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsTransient()) << failed.status().ToString();
}

TEST_F(FileStoreTest, ListTellsTempFilesAndStrangersFromObjects) {
  ObjectKey key = KeyFor("t", "real");
  ASSERT_TRUE(store_->Put(key, "real").ok());
  std::string hex = key.digest.substr(7);
  std::string base = root_ + "/t/sha256/";
  std::string other(64, 'c');  // under the wrong fan-out directory
  fs::create_directories(base + "zz");
  fs::create_directories(base + "cc/" +
                         std::string(64, 'd').replace(0, 2, "cc"));
  for (const std::string& junk :
       {base + hex.substr(0, 2) + "/.tmp-1-2-crashed", base + "ab/README",
        base + "zz/" + std::string(64, 'a'), base + "ab/" + other,
        base + "cc/" + std::string(64, 'C'), base + "README"}) {
    fs::create_directories(fs::path(junk).parent_path());
    std::ofstream(junk) << "junk";
  }
  EXPECT_EQ(List("t"), (std::map<std::string, uint64_t>{{key.digest, 4}}));
  std::string dir_like = "cc/" + std::string(64, 'd').replace(0, 2, "cc");
  EXPECT_EQ(Others("t"),
            (std::set<std::string>{
                "sha256/" + hex.substr(0, 2) + "/.tmp-1-2-crashed",
                "sha256/ab/README", "sha256/zz", "sha256/ab/" + other,
                "sha256/cc/" + std::string(64, 'C'), "sha256/README",
                "sha256/" + dir_like}));
  Fetched got = Fetch(store_.get(), key);
  EXPECT_EQ(got.data, "real");
}

TEST_F(FileStoreTest, KeysCannotEscapeTheRoot) {
  std::string digest = KeyFor("t", "x").digest;
  for (const ObjectKey& key :
       {ObjectKey{"..", digest}, ObjectKey{"../outside", digest},
        ObjectKey{"t", "sha256:/../../../../outside"}}) {
    EXPECT_TRUE(store_->Put(key, "x").IsInvalidArgument());
  }
  EXPECT_EQ(Names(tmp_.path()), std::vector<std::string>{"root"});
  EXPECT_FALSE(fs::exists(root_ + "/t"));
}

// A 64 MiB object goes in and out in bounded pieces: PutFile appends at most
// 256 KiB at a time and Get hands the sink at most 64 KiB.
TEST_F(FileStoreTest, LargeObjectsStreamInBoundedChunks) {
  ScopedTempDir src;
  std::string path = src.path() + "/sparse";
  {
    std::ofstream out(path, std::ios::binary);
    out << "head";
    out.seekp(32 * kMiB) << "middle";
    out.seekp(64 * kMiB - 4) << "tail";
  }
  ASSERT_EQ(fs::file_size(path), 64 * kMiB);
  digest::Sha256 source_hash;
  auto in = Env::Default()->NewSequentialFile(path, Env::Symlinks::kFollow);
  std::vector<char> buf(kMiB);
  for (size_t n; (n = *(*in)->Read(buf.data(), buf.size())) > 0;) {
    source_hash.Update(buf.data(), n);
  }
  Result<ObjectKey> key = MakeKey("t", "sha256:" + source_hash.FinishHex());
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(store_->PutFile(*key, path).ok());
  EXPECT_EQ(env_.calls(Op::kAppend), 256);  // 64 MiB / 256 KiB

  digest::Sha256 got_hash;
  uint64_t total = 0;
  size_t largest = 0;
  Status s = store_->Get(*key, [&](std::string_view chunk) {
    total += chunk.size();
    largest = std::max(largest, chunk.size());
    got_hash.Update(chunk);
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(total, 64 * kMiB);
  EXPECT_LE(largest, 64 * kKiB);
  EXPECT_EQ("sha256:" + got_hash.FinishHex(), key->digest);
}

// What the store holds at an object's key is not a regular file: that is
// about the data (kCorruption, which validation turns into a verdict), and
// it is found out without blocking or reading a device.
TEST_F(FileStoreTest, AnObjectThatIsNotARegularFileIsCorrupt) {
  struct Case {
    const char* name;
    std::function<void(const std::string& path)> make;
    const char* what;
  };
  const std::vector<Case> cases = {
      {"directory", [](const std::string& p) { fs::create_directory(p); },
       "a directory"},
      {"fifo",
       [](const std::string& p) { ASSERT_EQ(mkfifo(p.c_str(), 0600), 0); },
       "a FIFO"},
      {"symlink to /dev/zero",
       [](const std::string& p) {
         ASSERT_EQ(symlink("/dev/zero", p.c_str()), 0);
       },
       "a symbolic link"},
      {"symlink loop",
       [](const std::string& p) {
         ASSERT_EQ(symlink(p.c_str(), p.c_str()), 0);
       },
       "a symbolic link"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ObjectKey key = KeyFor("t", c.name);
    std::string hex = key.digest.substr(7);
    std::string dir = root_ + "/t/sha256/" + hex.substr(0, 2);
    fs::create_directories(dir);
    c.make(dir + "/" + hex);
    uint64_t delivered = 0;
    Status s = store_->Get(key, [&](std::string_view chunk) {
      delivered += chunk.size();
      return Status::OK();
    });
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(delivered, 0u);
    EXPECT_NE(s.message().find(key.digest), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.what), std::string::npos) << s.message();
  }
}

// An object of tenant t1 under its real key, and the name of its fan-out.
struct Planted {
  ObjectKey key;
  std::string path;
  std::string fanout;
};

// No key leads out of its tenant (docs/store.md, "The file store's
// layout"): a tenant's directory, or one fan-out of it, that is a link to
// another tenant's is one other key to a listing, and nothing is read,
// written or deleted through it.
TEST_F(FileStoreTest, NoKeyLeadsIntoAnotherTenantThroughALink) {
  auto plant = [&](const std::string& tenant, const std::string& content) {
    ObjectKey key = KeyFor(tenant, content);
    EXPECT_TRUE(store_->Put(key, content).ok());
    std::string hex = key.digest.substr(7);
    return Planted{
        key, root_ + "/" + tenant + "/sha256/" + hex.substr(0, 2) + "/" + hex,
        hex.substr(0, 2)};
  };
  Planted a = plant("t1", "one"), b = plant("t1", "two");
  ASSERT_EQ(symlink("t1", (root_ + "/t3").c_str()), 0);
  // t4 has an object of its own, and one fan-out that leads into t5's.
  Planted own = plant("t4", "own");
  Planted theirs = plant("t5", "theirs");
  if (theirs.fanout == own.fanout) theirs = plant("t5", "theirs, again");
  ASSERT_NE(theirs.fanout, own.fanout);
  ASSERT_EQ(symlink(("../../t5/sha256/" + theirs.fanout).c_str(),
                    (root_ + "/t4/sha256/" + theirs.fanout).c_str()),
            0);

  EXPECT_EQ(List("t3"), (std::map<std::string, uint64_t>{}));
  EXPECT_EQ(Others("t3"), std::set<std::string>{"."});
  EXPECT_EQ(List("t4"), (std::map<std::string, uint64_t>{{own.key.digest, 3}}));
  EXPECT_EQ(Others("t4"), std::set<std::string>{"sha256/" + theirs.fanout});

  // Through the links: an error of the layout, never an answer about the
  // object (found, missing or corrupt).
  std::vector<ObjectKey> through = {
      {"t3", a.key.digest}, {"t3", b.key.digest}, {"t4", theirs.key.digest}};
  for (const ObjectKey& key : through) {
    SCOPED_TRACE(key.tenant_id);
    Fetched got = Fetch(store_.get(), key);
    EXPECT_TRUE(got.status.IsFailedPrecondition()) << got.status.ToString();
    EXPECT_NE(got.status.message().find("a symbolic link in its path"),
              std::string::npos)
        << got.status.message();
    EXPECT_EQ(got.data, "");
    EXPECT_TRUE(store_->Head(key).status().IsFailedPrecondition());
    EXPECT_TRUE(store_->Put(key, "x").IsFailedPrecondition());
  }
  Result<std::vector<Status>> deleted = store_->DeleteMany(through);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  for (const Status& s : *deleted) {
    EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
  }
  for (const Planted& p : {a, b, theirs}) {
    EXPECT_TRUE(fs::is_regular_file(p.path)) << p.path << " was deleted";
    EXPECT_EQ(Fetch(store_.get(), p.key).status.ok(), true);
  }
  EXPECT_EQ(List("t1").size(), 2u);
  EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
}

// Whatever is where the layout has a directory (a file, a FIFO, a link
// loop) is an other key, and the listing goes on: one odd entry does not
// stop a tenant's reconciliation.
TEST_F(FileStoreTest, OddEntriesWhereTheLayoutHasDirectoriesAreOtherKeys) {
  ObjectKey real = KeyFor("odd", "real");
  ASSERT_TRUE(store_->Put(real, "real").ok());
  std::string fanout = real.digest.substr(7, 2);
  std::string base = root_ + "/odd/sha256/";
  // Three fan-outs that are not directories, none of them the real one's.
  std::vector<std::string> odd;
  for (const char* name : {"0a", "0b", "0c", "0d"}) {
    if (name != fanout && odd.size() < 3) odd.push_back(name);
  }
  std::ofstream(base + odd[0]) << "a file";
  ASSERT_EQ(mkfifo((base + odd[1]).c_str(), 0600), 0);
  ASSERT_EQ(symlink((base + odd[2]).c_str(), (base + odd[2]).c_str()), 0);
  EXPECT_EQ(List("odd"), (std::map<std::string, uint64_t>{{real.digest, 4}}));
  EXPECT_EQ(Others("odd"),
            (std::set<std::string>{"sha256/" + odd[0], "sha256/" + odd[1],
                                   "sha256/" + odd[2]}));
  // Nothing can be under a fan-out that is a file: missing, not an error.
  ObjectKey under{"odd", "sha256:" + odd[0] + std::string(62, 'e')};
  EXPECT_TRUE(Fetch(store_.get(), under).status.IsNotFound());
  EXPECT_TRUE(store_->Head(under).status().IsNotFound());

  // "sha256" that is a file; a tenant's directory that is a file, or a
  // link loop.
  fs::create_directories(root_ + "/flat");
  std::ofstream(root_ + "/flat/sha256") << "x";
  std::ofstream(root_ + "/afile") << "x";
  ASSERT_EQ(symlink((root_ + "/loop").c_str(), (root_ + "/loop").c_str()), 0);
  EXPECT_EQ(Others("flat"), std::set<std::string>{"sha256"});
  EXPECT_EQ(Others("afile"), std::set<std::string>{"."});
  EXPECT_EQ(Others("loop"), std::set<std::string>{"."});
  EXPECT_EQ(List("flat").size() + List("afile").size() + List("loop").size(),
            0u);
  // A resumed listing reports a fan-out it has passed only once.
  std::vector<std::string> names;
  Status s = store_->List("odd", "sha256:" + odd[1] + std::string(62, '0'),
                          [&](const ObjectStore::ListedKey& k) {
                            names.push_back(k.name);
                            return Status::OK();
                          });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(std::count(names.begin(), names.end(), "sha256/" + odd[0]), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "sha256/" + odd[2]), 1);
}

// A link at an object's key is not the object, wherever it leads: it is
// listed as an other key (a dangling one too), never with the size of
// what it points at.
TEST_F(FileStoreTest, LinksAtObjectKeysAreOtherKeys) {
  ObjectKey key = KeyFor("t", "linked");
  std::string hex = key.digest.substr(7);
  std::string dir = root_ + "/t/sha256/" + hex.substr(0, 2);
  fs::create_directories(dir);
  std::ofstream(tmp_.path() + "/old") << "an unrelated, older file";
  ASSERT_EQ(symlink((tmp_.path() + "/old").c_str(), (dir + "/" + hex).c_str()),
            0);
  ObjectKey dangling_key = KeyFor("t", "dangling");
  std::string dhex = dangling_key.digest.substr(7);
  fs::create_directories(root_ + "/t/sha256/" + dhex.substr(0, 2));
  ASSERT_EQ(
      symlink("/nonexistent",
              (root_ + "/t/sha256/" + dhex.substr(0, 2) + "/" + dhex).c_str()),
      0);
  EXPECT_EQ(List("t"), (std::map<std::string, uint64_t>{}));
  EXPECT_EQ(Others("t"), (std::set<std::string>{
                             "sha256/" + hex.substr(0, 2) + "/" + hex,
                             "sha256/" + dhex.substr(0, 2) + "/" + dhex}));
  Result<uint64_t> head = store_->Head(key);
  EXPECT_TRUE(head.status().IsCorruption()) << head.status().ToString();
}

// A directory at an object's key is not replaced by a write: the object
// cannot be stored there, and nothing is written.
TEST_F(FileStoreTest, ADirectoryAtAKeyIsNotReplaced) {
  ObjectKey key = KeyFor("t", "blocked");
  std::string hex = key.digest.substr(7);
  std::string path = root_ + "/t/sha256/" + hex.substr(0, 2) + "/" + hex;
  fs::create_directories(path + "/inside");
  Status put = store_->Put(key, "blocked");
  EXPECT_TRUE(put.IsFailedPrecondition()) << put.ToString();
  EXPECT_NE(put.message().find("is a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(path + "/inside"));
  EXPECT_TRUE(store_->Head(key).status().IsCorruption());
  EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
}

// A root reached through a link (/srv/cas -> /data/cas) is resolved when
// the store opens: no link below it is followed, the one above is.
TEST(FileStoreOpenTest, ARootReachedThroughALinkWorks) {
  ScopedTempDir tmp;
  fs::create_directories(tmp.path() + "/data/cas");
  ASSERT_EQ(
      symlink((tmp.path() + "/data").c_str(), (tmp.path() + "/srv").c_str()),
      0);
  Result<std::unique_ptr<ObjectStore>> store =
      NewFileStore(tmp.path() + "/srv/cas");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ObjectKey key = KeyFor("t", "through");
  ASSERT_TRUE((*store)->Put(key, "through").ok());
  EXPECT_EQ(Fetch(store->get(), key).data, "through");
  EXPECT_EQ(*(*store)->Head(key), 7u);
  EXPECT_TRUE(fs::is_regular_file(tmp.path() + "/data/cas/t/sha256/" +
                                  key.digest.substr(7, 2) + "/" +
                                  key.digest.substr(7)));
}

TEST(FileStoreOpenTest, RefusesAMissingRootAndCreatesNothing) {
  // A store is created by `awcctl store init` only: a typo or a missing
  // mount must not become a new, empty store.
  ScopedTempDir tmp;
  std::string root = tmp.path() + "/a/b/c";
  Result<std::unique_ptr<ObjectStore>> store = NewFileStore(root + "/");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(store.status().IsNotFound());
  EXPECT_EQ(store.status().message(),
            "file store root \"" + root + "\" does not exist");
  EXPECT_FALSE(fs::exists(tmp.path() + "/a"));
  fs::create_directories(root);
  store = NewFileStore(root + "/");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_STREQ((*store)->scheme(), "file");
  EXPECT_EQ(TempFiles(tmp.path()), std::vector<std::string>{});
}

TEST_F(FileStoreTest, TheMarkerIsAFileAtTheRoot) {
  EXPECT_TRUE(store_->ReadMarker().status().IsNotFound());
  ASSERT_TRUE(store_->WriteMarker("{\"m\": 1}\n").ok());
  Result<std::string> m = store_->ReadMarker();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*m, "{\"m\": 1}\n");
  EXPECT_EQ(*Env::Default()->ReadFile(root_ + "/.awc-store"), "{\"m\": 1}\n");
  EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
  // Not a tenant: listing nothing, and no tenant id can name it.
  EXPECT_TRUE(List("t").empty());
}

TEST_F(FileStoreTest, AMarkerWriteThatFailsLeavesTheOldOneAndNoTempFile) {
  ASSERT_TRUE(store_->WriteMarker("old").ok());
  for (Op op : {Op::kAppend, Op::kSync, Op::kRenameFile}) {
    env_.FailNth(op, 1, EIO);
    Status s = store_->WriteMarker("new");
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(s.message().starts_with("cannot write the store marker: "))
        << s.message();
    EXPECT_EQ(*store_->ReadMarker(), "old");
    EXPECT_EQ(TempFiles(root_), std::vector<std::string>{});
  }
}

TEST(FileStoreOpenTest, RefusesARelativeRootOrOneThatIsAFile) {
  Result<std::unique_ptr<ObjectStore>> store = NewFileStore("cas/objects");
  EXPECT_TRUE(store.status().IsInvalidArgument());
  EXPECT_NE(store.status().message().find("cas/objects"), std::string::npos);

  ScopedTempDir tmp;
  std::string file = tmp.path() + "/file";
  std::ofstream(file) << "x";
  store = NewFileStore(file);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().message(),
            "file store root \"" + file + "\" is not a directory");

  store = NewFileStore(file + "/sub");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(file + "/sub"), std::string::npos)
      << store.status().message();
}

TEST(FileStoreOpenTest, RefusesARootItCannotWriteTo) {
  ScopedTempDir tmp;
  FaultEnv env(Env::Default());
  env.FailNth(Op::kNewWritableFile, 1, EROFS);
  Result<std::unique_ptr<ObjectStore>> store = NewFileStore(tmp.path(), &env);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("file store root \"" + tmp.path() +
                                          "\" is not writable"),
            std::string::npos)
      << store.status().message();
  EXPECT_NE(store.status().message().find("Read-only file system"),
            std::string::npos);
}

}  // namespace
}  // namespace awc::store
