#include "store/open_store.h"

#include <ev.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/store_conformance.h"

namespace awc::store {
namespace {

namespace fs = std::filesystem;
using storetest::ScopedTempDir;

class OpenStoreTest : public ::testing::Test {
 protected:
  void TearDown() override { ev_loop_destroy(loop_); }

  Result<std::unique_ptr<ObjectStore>> OpenInitialized(const std::string& u) {
    Result<StoreUrl> url = ParseStoreUrl(u);
    if (!url.ok()) return url.status();
    return OpenInitializedStore(*url, S3Options{}, loop_);
  }
  Result<bool> Initialize(const std::string& u) {
    Result<StoreUrl> url = ParseStoreUrl(u);
    if (!url.ok()) return url.status();
    return InitializeStore(*url, S3Options{}, loop_);
  }

  ScopedTempDir tmp_;
  struct ev_loop* loop_ = ev_loop_new(EVFLAG_AUTO);
};

TEST_F(OpenStoreTest, AMissingFileRootIsNotInitialisedAndIsNotCreated) {
  std::string root = tmp_.path() + "/mnt/cas";
  auto st = OpenInitialized("file://" + root);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.status().IsFailedPrecondition()) << st.status().ToString();
  EXPECT_EQ(st.status().message(),
            "file://" + root +
                " is not an initialised awc store (file store "
                "root \"" +
                root +
                "\" does not exist); check the URL, or "
                "create the store with \"awcctl store init file://" +
                root + "\"");
  EXPECT_FALSE(fs::exists(tmp_.path() + "/mnt"));
}

TEST_F(OpenStoreTest, AnEmptyDirectoryIsNotInitialised) {
  auto st = OpenInitialized("file://" + tmp_.path() + "/");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().message(),
            "file://" + tmp_.path() +
                " is not an initialised awc store (no "
                ".awc-store marker); check the URL, or create the store with "
                "\"awcctl store init file://" +
                tmp_.path() + "\"");
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}

TEST_F(OpenStoreTest, InitializeMakesTheRootAndTheMarkerOnce) {
  std::string root = tmp_.path() + "/a/b";
  Result<bool> made = Initialize("file://" + root);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(*made);
  EXPECT_TRUE(fs::is_regular_file(root + "/.awc-store"));
  auto st = OpenInitialized("file://" + root);
  ASSERT_TRUE(st.ok()) << st.status().ToString();

  // Again, also through another spelling of the same URL: nothing to do.
  made = Initialize("file://" + root + "//");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_FALSE(*made);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root)) {
    names.push_back(e.path().filename());
  }
  EXPECT_EQ(names, std::vector<std::string>{".awc-store"});
}

TEST_F(OpenStoreTest, InitializeKeepsWhatAnExistingStoreHolds) {
  // A store of an earlier release, objects and no marker: it gains one.
  fs::create_directories(tmp_.path() + "/t1/sha256/ab");
  std::ofstream(tmp_.path() + "/t1/sha256/ab/object") << "data";
  Result<bool> made = Initialize("file://" + tmp_.path());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(*made);
  EXPECT_TRUE(fs::exists(tmp_.path() + "/t1/sha256/ab/object"));
  EXPECT_TRUE(OpenInitialized("file://" + tmp_.path()).ok());
}

TEST_F(OpenStoreTest, InitializeRefusesARootThatIsAFile) {
  std::string file = tmp_.path() + "/file";
  std::ofstream(file) << "x";
  Result<bool> made = Initialize("file://" + file);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find(file), std::string::npos)
      << made.status().message();
}

TEST_F(OpenStoreTest, MemoryNeedsNoMarker) {
  EXPECT_TRUE(OpenInitialized("memory://").ok());
  Result<bool> made = Initialize("memory://");
  ASSERT_TRUE(made.ok());
  EXPECT_FALSE(*made);
}

}  // namespace
}  // namespace awc::store
