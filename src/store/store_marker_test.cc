#include "store/store_marker.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/file_store.h"
#include "store/memory_store.h"
#include "store/store_conformance.h"

namespace awc::store {
namespace {

using storetest::ScopedTempDir;

class StoreMarkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto st = NewFileStore(tmp_.path());
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(*st);
    url_ = "file://" + tmp_.path();
  }
  void WriteRaw(const std::string& content) {
    std::ofstream(tmp_.path() + "/.awc-store") << content;
  }

  ScopedTempDir tmp_;
  std::unique_ptr<ObjectStore> store_;
  std::string url_;
};

TEST_F(StoreMarkerTest, AStoreWithoutTheMarkerIsRefusedWithWhatToDo) {
  Status s = CheckStoreMarker(*store_, url_);
  EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
  EXPECT_EQ(s.message(),
            url_ +
                " is not an initialised awc store (no .awc-store marker); "
                "check the URL, or create the store with \"awcctl store "
                "init " +
                url_ + "\"");
}

TEST_F(StoreMarkerTest, WritingTheMarkerOnceMakesTheStoreUsable) {
  Result<bool> made = WriteStoreMarker(*store_, url_);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(*made);
  EXPECT_TRUE(CheckStoreMarker(*store_, url_).ok());
  EXPECT_EQ(*store_->ReadMarker(),
            "{\"format\":\"awc-store\",\"version\":1}\n");
  EXPECT_EQ(*store_->ReadMarker(), StoreMarkerContent());
  // Again: nothing to do, nothing rewritten.
  made = WriteStoreMarker(*store_, url_);
  ASSERT_TRUE(made.ok());
  EXPECT_FALSE(*made);
}

TEST_F(StoreMarkerTest, OtherVersionsAndMalformedMarkersAreRefused) {
  const std::string newer = R"({"format": "awc-store", "version": 2})";
  WriteRaw(newer);
  Status s = CheckStoreMarker(*store_, url_);
  EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
  EXPECT_EQ(s.message(), url_ +
                             " has store format version 2, which this "
                             "release of awc-worker does not know (it knows "
                             "version 1)");
  // Writing does not replace it.
  Result<bool> made = WriteStoreMarker(*store_, url_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(), s.message());
  EXPECT_EQ(*store_->ReadMarker(), newer);

  for (const char* bad : {"", "not json", "[]", R"({"format": "awc-store"})",
                          R"({"format": "other", "version": 1})",
                          R"({"format": "awc-store", "version": "1"})",
                          R"({"format": "awc-store", "version": 1.0})"}) {
    SCOPED_TRACE(bad);
    WriteRaw(bad);
    s = CheckStoreMarker(*store_, url_);
    EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
    EXPECT_EQ(s.message(), url_ +
                               ": its .awc-store marker is malformed (expected "
                               "{\"format\":\"awc-store\",\"version\":1})");
    EXPECT_FALSE(WriteStoreMarker(*store_, url_).ok());
  }
  // Keys it does not know are fine.
  WriteRaw(R"({"format": "awc-store", "version": 1, "created_by": "me"})");
  EXPECT_TRUE(CheckStoreMarker(*store_, url_).ok());
}

TEST_F(StoreMarkerTest, AMarkerThatCannotBeReadIsAnErrorNamingTheStore) {
  std::filesystem::create_directory(tmp_.path() + "/.awc-store");
  Status s = CheckStoreMarker(*store_, url_);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(
      s.message().starts_with(url_ + ": cannot read its .awc-store marker: "))
      << s.message();
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos)
      << s.message();
  EXPECT_FALSE(WriteStoreMarker(*store_, url_).ok());
  EXPECT_TRUE(std::filesystem::is_directory(tmp_.path() + "/.awc-store"));

  std::filesystem::remove(tmp_.path() + "/.awc-store");
  WriteRaw(StoreMarkerContent() + std::string(5000, ' '));
  s = CheckStoreMarker(*store_, url_);
  EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
  EXPECT_NE(s.message().find("is larger than 4096 bytes"), std::string::npos)
      << s.message();
}

TEST(StoreMarkerMemoryTest, MemoryStoresNeedNone) {
  std::unique_ptr<ObjectStore> mem = NewMemoryStore();
  EXPECT_TRUE(CheckStoreMarker(*mem, "memory://").ok());
}

}  // namespace
}  // namespace awc::store
