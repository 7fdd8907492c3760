#include "cas/repair.h"

#include <gtest/gtest.h>

#include "digest/sha256.h"
#include "store/memory_store.h"

namespace awc::cas {
namespace {

store::ObjectKey KeyOf(const std::string& data) {
  return *store::MakeKey("t1", "sha256:" + digest::Sha256::HexOf(data));
}

class RepairTest : public ::testing::Test {
 protected:
  std::string Primary(const store::ObjectKey& key) {
    std::string got;
    Status s = primary_->Get(key, [&](std::string_view c) {
      got.append(c);
      return Status::OK();
    });
    return s.ok() ? got : "<" + s.ToString() + ">";
  }

  std::unique_ptr<store::ObjectStore> primary_ = store::NewMemoryStore();
  std::unique_ptr<store::ObjectStore> replica_ = store::NewMemoryStore();
  SpillOptions spill_;
};

TEST_F(RepairTest, TheReplicasGoodBytesAreCopied) {
  std::string data(200 * 1024, 'r');
  store::ObjectKey key = KeyOf(data);
  ASSERT_TRUE(replica_->Put(key, data).ok());
  ASSERT_TRUE(primary_->Put(key, "decayed").ok());  // what was there
  auto r = CopyVerified(*replica_, *primary_, key, data.size(), spill_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, RepairCopy::kRepaired);
  EXPECT_EQ(Primary(key), data);
  // Without a known size (a snapshot's root), the digest alone decides.
  store::ObjectKey other = KeyOf("root manifest");
  ASSERT_TRUE(replica_->Put(other, "root manifest").ok());
  EXPECT_EQ(*CopyVerified(*replica_, *primary_, other, std::nullopt, spill_),
            RepairCopy::kRepaired);
  EXPECT_EQ(Primary(other), "root manifest");
}

TEST_F(RepairTest, AReplicaWithoutTheObjectRepairsNothing) {
  store::ObjectKey key = KeyOf("nowhere");
  EXPECT_EQ(*CopyVerified(*replica_, *primary_, key, 7, spill_),
            RepairCopy::kAbsent);
  EXPECT_TRUE(primary_->Head(key).status().IsNotFound());
}

TEST_F(RepairTest, WrongBytesFromTheReplicaAreNeverWritten) {
  store::ObjectKey key = KeyOf("the object");
  // Same length, other bytes; longer; shorter: each is refused.
  for (std::string lie : {"the Object", "the object and more", "the obj"}) {
    SCOPED_TRACE(lie);
    ASSERT_TRUE(replica_->Put(key, lie).ok());  // Put stores what it is given
    auto r = CopyVerified(*replica_, *primary_, key, 10, spill_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, RepairCopy::kCorrupt);
    EXPECT_TRUE(primary_->Head(key).status().IsNotFound());
  }
}

}  // namespace
}  // namespace awc::cas
