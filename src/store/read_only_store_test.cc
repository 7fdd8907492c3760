#include "store/read_only_store.h"

#include <gtest/gtest.h>

#include "digest/sha256.h"
#include "store/memory_store.h"

namespace awc::store {
namespace {

ObjectKey KeyOf(const std::string& data) {
  return *MakeKey("t1", "sha256:" + digest::Sha256::HexOf(data));
}

TEST(ReadOnlyStoreTest, ReadsPassAndWritesAreRefused) {
  auto inner = NewMemoryStore();
  ObjectStore* raw = inner.get();
  ASSERT_TRUE(raw->Put(KeyOf("kept"), "kept").ok());
  ASSERT_TRUE(raw->WriteMarker("{}").ok());
  std::unique_ptr<ObjectStore> ro = NewReadOnlyStore(std::move(inner));

  std::string got;
  ASSERT_TRUE(ro->Get(KeyOf("kept"), [&](std::string_view c) {
                  got.append(c);
                  return Status::OK();
                }).ok());
  EXPECT_EQ(got, "kept");
  EXPECT_EQ(*ro->Head(KeyOf("kept")), 4u);
  EXPECT_EQ(*ro->ReadMarker(), "{}");
  int listed = 0;
  ASSERT_TRUE(ro->List("t1", "", [&](const ObjectStore::ListedKey&) {
                  ++listed;
                  return Status::OK();
                }).ok());
  EXPECT_EQ(listed, 1);

  Status put = ro->Put(KeyOf("new"), "new");
  EXPECT_TRUE(put.IsFailedPrecondition()) << put.ToString();
  EXPECT_NE(put.message().find("read-only"), std::string::npos);
  EXPECT_TRUE(ro->PutFile(KeyOf("new"), "/dev/null").IsFailedPrecondition());
  EXPECT_TRUE(ro->DeleteMany({KeyOf("kept")}).status().IsFailedPrecondition());
  EXPECT_TRUE(ro->WriteMarker("x").IsFailedPrecondition());
  // Nothing changed underneath.
  EXPECT_TRUE(raw->Head(KeyOf("kept")).ok());
  EXPECT_TRUE(raw->Head(KeyOf("new")).status().IsNotFound());
  EXPECT_EQ(*raw->ReadMarker(), "{}");
}

}  // namespace
}  // namespace awc::store
