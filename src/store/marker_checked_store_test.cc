#include "store/marker_checked_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/file_store.h"
#include "store/store_conformance.h"
#include "store/store_marker.h"

namespace awc::store {
namespace {

namespace fs = std::filesystem;
using storetest::Fetch;
using storetest::KeyFor;
using storetest::ScopedTempDir;

// A file:// store whose volume can be unmounted: the root is a directory
// that Unmount() moves aside, leaving an empty mount point, as `umount`
// does; Mount() brings it back.
class MarkerCheckedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/mnt";
    fs::create_directory(root_);
    auto inner = NewFileStore(root_);
    ASSERT_TRUE(inner.ok()) << inner.status().ToString();
    ASSERT_TRUE(WriteStoreMarker(**inner, "file://" + root_).ok());
    store_ = NewMarkerCheckedStore(std::move(*inner), "file://" + root_,
                                   "AWC_CAS_URL");
    ASSERT_TRUE(store_->Put(present_, "present").ok());
  }

  void Unmount() {
    fs::rename(root_, tmp_.path() + "/volume");
    fs::create_directory(root_);
  }
  void Mount() {
    fs::remove(root_);
    fs::rename(tmp_.path() + "/volume", root_);
  }

  // Every error of an unmounted store: transient, naming the setting and
  // the missing marker.
  static void ExpectNotThere(const Status& s) {
    EXPECT_TRUE(s.IsTransient()) << s.ToString();
    EXPECT_NE(s.message().find("AWC_CAS_URL"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(".awc-store"), std::string::npos) << s.message();
  }

  ScopedTempDir tmp_;
  std::string root_;
  std::unique_ptr<ObjectStore> store_;
  const ObjectKey present_ = KeyFor("t", "present");
  const ObjectKey absent_ = KeyFor("t", "absent");
};

TEST_F(MarkerCheckedStoreTest, MissingIsMissingWhileTheStoreIsThere) {
  EXPECT_TRUE(Fetch(store_.get(), absent_).status.IsNotFound());
  EXPECT_TRUE(store_->Head(absent_).status().IsNotFound());
  EXPECT_EQ(*store_->Head(present_), 7u);
  int listed = 0;
  Status s = store_->List("t", "", [&](const ObjectStore::ListedKey&) {
    ++listed;
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(listed, 1);
}

TEST_F(MarkerCheckedStoreTest, NothingIsMissingFromAStoreThatIsNotThere) {
  Unmount();
  ExpectNotThere(Fetch(store_.get(), present_).status);
  ExpectNotThere(store_->Head(absent_).status());
  // A listing of the empty mount point says nothing either.
  int listed = 0;
  ExpectNotThere(store_->List("t", "", [&](const ObjectStore::ListedKey&) {
    ++listed;
    return Status::OK();
  }));
  EXPECT_EQ(listed, 0);
  // Nothing is written into the mount point or deleted.
  ExpectNotThere(store_->Put(absent_, "absent"));
  Result<std::vector<Status>> deleted = store_->DeleteMany({present_});
  ExpectNotThere(deleted.status());
  EXPECT_TRUE(fs::is_empty(root_));

  // Back: the object is there, and what is missing is missing again.
  Mount();
  EXPECT_EQ(Fetch(store_.get(), present_).data, "present");
  EXPECT_TRUE(store_->Head(absent_).status().IsNotFound());
}

// GetMany and HeadMany: what was found is delivered as found; what was not
// waits for one read of the marker, after all the requests.
TEST_F(MarkerCheckedStoreTest, ManyRequestsReadTheMarkerOnceForWhatTheyLack) {
  for (bool mounted : {true, false}) {
    SCOPED_TRACE(mounted ? "mounted" : "unmounted");
    if (!mounted) {
      // The object stays readable (the volume keeps it) but the marker is
      // gone: only "missing" needs the marker.
      fs::rename(root_ + "/.awc-store", tmp_.path() + "/marker");
    }
    std::vector<Status> got(3);
    std::vector<ObjectStore::GetRequest> gets;
    for (int i = 0; i < 3; ++i) {
      gets.push_back({i == 1 ? present_ : KeyFor("t", std::to_string(i)),
                      [](std::string_view) { return Status::OK(); },
                      [&got, i](Status s) { got[i] = std::move(s); }});
    }
    store_->GetMany(gets);
    EXPECT_TRUE(got[1].ok()) << got[1].ToString();
    std::vector<Result<uint64_t>> sizes(3, Status::Internal("not called"));
    std::vector<ObjectStore::HeadRequest> heads;
    for (int i = 0; i < 3; ++i) {
      heads.push_back(
          {i == 1 ? present_ : KeyFor("t", std::to_string(i)),
           [&sizes, i](Result<uint64_t> r) { sizes[i] = std::move(r); }});
    }
    store_->HeadMany(heads);
    EXPECT_EQ(*sizes[1], 7u);
    for (int i : {0, 2}) {
      if (mounted) {
        EXPECT_TRUE(got[i].IsNotFound()) << got[i].ToString();
        EXPECT_TRUE(sizes[i].status().IsNotFound());
      } else {
        ExpectNotThere(got[i]);
        ExpectNotThere(sizes[i].status());
      }
    }
  }
}

}  // namespace
}  // namespace awc::store
