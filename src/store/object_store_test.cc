#include "store/object_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/memory_store.h"

namespace awc::store {
namespace {

const std::string kDigest =
    "sha256:" + std::string(2, 'a') + std::string(62, 'b');

TEST(ObjectStoreTest, KeysAreCheckedBeforeAnyNameIsBuiltFromThem) {
  Result<ObjectKey> key = MakeKey("t1", kDigest);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(RelativeKey(*key), "t1/sha256/aa/" + kDigest.substr(7));
  EXPECT_EQ(MakeKey("../t1", kDigest).status().message(),
            "malformed tenant id");
  EXPECT_EQ(MakeKey("t1", "sha256:../../etc").status().message(),
            "malformed digest");
  EXPECT_TRUE(MakeKey("t1", "sha256:" + std::string(64, 'A'))
                  .status()
                  .IsInvalidArgument());
}

TEST(ObjectStoreTest, ContentChangedNamesTheObjectAndTheFile) {
  Status s = ContentChanged(*MakeKey("t1", kDigest), "/in/f");
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find(kDigest), std::string::npos);
  EXPECT_NE(s.message().find("\"/in/f\""), std::string::npos);
}

TEST(ObjectStoreTest, GetManyByDefaultGetsEachInTurn) {
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  ObjectKey there = *MakeKey("t1", kDigest);
  ASSERT_TRUE(store->Put(there, "abc").ok());
  ObjectKey absent = *MakeKey("t1", "sha256:" + std::string(64, 'c'));
  std::string got;
  std::vector<Status> done(2);
  std::vector<ObjectStore::GetRequest> requests;
  requests.push_back({there,
                      [&](std::string_view chunk) {
                        got.append(chunk);
                        return Status::OK();
                      },
                      [&](Status s) { done[0] = s; }});
  requests.push_back({absent, [](std::string_view) { return Status::OK(); },
                      [&](Status s) { done[1] = s; }});
  store->GetMany(requests);
  EXPECT_TRUE(done[0].ok()) << done[0].ToString();
  EXPECT_EQ(got, "abc");
  EXPECT_TRUE(done[1].IsNotFound()) << done[1].ToString();
}

}  // namespace
}  // namespace awc::store
