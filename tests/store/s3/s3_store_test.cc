// The s3:// store against a real S3 protocol server (s3rver) on loopback:
// transfers, listing, deletion, concurrency, addressing, a second client.
#if AWC_WITH_S3

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/s3/s3_store_testing.h"
#include "tests/support/s3_fixture.h"

namespace awc::store::s3test {
namespace {

TEST_F(S3StoreTest, RoundTripsObjectsOfManySizes) {
  ObjectStore* store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_STREQ(store->scheme(), "s3");
  const size_t sizes[] = {
      0, 1, 1000, 64 * kKiB - 1, 64 * kKiB + 1, 1 * kMiB + 3, 5 * kMiB + 11};
  uint32_t seed = 1;
  for (size_t size : sizes) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::string data = Pattern(size, seed++);
    ObjectKey key = KeyOf("t1", data);
    Status put = store->Put(key, data);
    ASSERT_TRUE(put.ok()) << put.ToString();
    Fetched f = Fetch(store, key);
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    EXPECT_EQ(f.data.size(), size);
    EXPECT_TRUE(f.data == data) << "bytes differ";
    if (size >= kMiB) {
      EXPECT_GT(f.chunk_sizes.size(), 1u) << "not streamed";
    }
    Result<uint64_t> head = store->Head(key);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(*head, size);
  }
  // Connections are reused across calls, not opened per request.
  S3Stats stats = GetS3Stats(*store);
  EXPECT_GE(stats.transfers, 21);
  EXPECT_LE(stats.connections_opened, 3) << "connections are not reused";
}

TEST_F(S3StoreTest, AbsentObjectIsNotFound) {
  ObjectStore* store = Open();
  ObjectKey key = KeyOf("t1", "never stored");
  Fetched f = Fetch(store, key);
  EXPECT_TRUE(f.status.IsNotFound()) << f.status.ToString();
  EXPECT_NE(f.status.message().find(key.digest), std::string::npos);
  EXPECT_NE(f.status.message().find("NoSuchKey"), std::string::npos);
  EXPECT_EQ(f.chunk_sizes.size(), 0u) << "an error body reached the sink";
  Result<uint64_t> head = store->Head(key);
  EXPECT_TRUE(head.status().IsNotFound()) << head.status().ToString();
}

TEST_F(S3StoreTest, PutFileStreamsTheFile) {
  ObjectStore* store = Open();
  std::string path = server_->data_dir() + "-upload";
  std::string data = Pattern(3 * kMiB + 5, 9);
  std::ofstream(path, std::ios::binary) << data;
  ObjectKey key = KeyOf("t1", data);
  Status s = store->PutFile(key, path);
  std::filesystem::remove(path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Fetched f = Fetch(store, key);
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_TRUE(f.data == data);
  EXPECT_EQ(*store->Head(key), data.size());

  Status missing = store->PutFile(key, path);
  EXPECT_EQ(missing.code(), Status::Code::kIoError) << missing.ToString();
}

TEST_F(S3StoreTest, ListPaginatesAndDeleteManyBatches) {
  ObjectStore* store = Open();
  std::map<std::string, uint64_t> anchors = PutAnchors(store, "t1");
  std::map<std::string, uint64_t> want = PutMany(store, "t1", 1100);
  ASSERT_EQ(want.size(), 1100u);
  // Neighbours that must not be listed: another tenant whose name has t1 as
  // a prefix, and the same tenant under a store prefix.
  PutMany(store, "t1-x", 2);
  PutMany(Open(std::string("s3://") + kBucket + "/t1"), "t1", 2);

  int64_t before = GetS3Stats(*store).transfers;
  std::map<std::string, uint64_t> all = want;
  all.insert(anchors.begin(), anchors.end());
  EXPECT_EQ(ListAll(store, "t1"), all);
  EXPECT_EQ(GetS3Stats(*store).transfers - before, 2) << "expected two pages";

  std::vector<ObjectKey> keys;
  for (const auto& [digest, size] : want)
    keys.push_back(*MakeKey("t1", digest));
  for (int i = 0; i < 300; ++i)
    keys.push_back(KeyOf("t1", "absent " + std::to_string(i)));
  keys.push_back(keys.front());  // the same key twice
  before = GetS3Stats(*store).transfers;
  Result<std::vector<Status>> r = store->DeleteMany(keys);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(GetS3Stats(*store).transfers - before, 2) << "expected two batches";
  ASSERT_EQ(r->size(), keys.size());
  for (const Status& s : *r) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ListAll(store, "t1"), anchors);
  EXPECT_EQ(ListAll(store, "t1-x").size(), 2u);
  EXPECT_TRUE(Fetch(store, keys.front()).status.IsNotFound());
}

TEST_F(S3StoreTest, GetManyOverlapsTransfers) {
  ObjectStore* store = Open(std::string("s3://") + kBucket,
                            [](S3Options& s) { s.max_concurrency = 8; });
  EXPECT_EQ(store->parallelism(), 8);
  std::vector<std::string> datas;
  std::vector<ObjectKey> keys;
  for (int i = 0; i < 64; ++i) {
    datas.push_back(Pattern(96 * kKiB + static_cast<size_t>(i), 100 + i));
    keys.push_back(KeyOf("t1", datas.back()));
    ASSERT_TRUE(store->Put(keys.back(), datas.back()).ok());
  }
  keys.push_back(KeyOf("t1", "absent"));
  std::vector<std::string> got(keys.size());
  std::vector<std::vector<Status>> done(keys.size());
  std::vector<ObjectStore::GetRequest> requests;
  for (size_t i = 0; i < keys.size(); ++i) {
    requests.push_back(
        {keys[i],
         [&got, i](std::string_view c) {
           got[i].append(c);
           return Status::OK();
         },
         [&done, i](Status s) { done[i].push_back(std::move(s)); }});
  }
  store->GetMany(requests);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(done[i].size(), 1u) << "request " << i;
    if (i < datas.size()) {
      EXPECT_TRUE(done[i][0].ok()) << done[i][0].ToString();
      EXPECT_TRUE(got[i] == datas[i]) << "request " << i;
    } else {
      EXPECT_TRUE(done[i][0].IsNotFound()) << done[i][0].ToString();
    }
  }
  S3Stats stats = GetS3Stats(*store);
  EXPECT_GT(stats.max_in_flight, 1) << "GetMany did not overlap transfers";
  EXPECT_LE(stats.max_in_flight, 8);
  EXPECT_LE(stats.connections_opened, 8 + 2);
  std::cout << "max in flight " << stats.max_in_flight << ", connections "
            << stats.connections_opened << " for " << stats.transfers
            << " transfers\n";
}

TEST_F(S3StoreTest, HeadManyOverlapsRequestsAndAnswersEachWithItsSize) {
  ObjectStore* store = Open(std::string("s3://") + kBucket,
                            [](S3Options& s) { s.max_concurrency = 8; });
  std::vector<ObjectKey> keys;
  for (int i = 0; i < 40; ++i) {
    std::string data = Pattern(100 + static_cast<size_t>(i), 300 + i);
    keys.push_back(KeyOf("t1", data));
    ASSERT_TRUE(store->Put(keys.back(), data).ok());
  }
  keys.push_back(KeyOf("t1", "absent"));
  std::vector<std::vector<Result<uint64_t>>> done(keys.size());
  std::vector<ObjectStore::HeadRequest> requests;
  for (size_t i = 0; i < keys.size(); ++i) {
    requests.push_back(
        {keys[i], [&done, i](Result<uint64_t> r) { done[i].push_back(r); }});
  }
  int64_t before = GetS3Stats(*store).transfers;
  store->HeadMany(requests);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(done[i].size(), 1u) << "request " << i;
    if (i + 1 < keys.size()) {
      ASSERT_TRUE(done[i][0].ok()) << done[i][0].status().ToString();
      EXPECT_EQ(*done[i][0], 100 + i);
    } else {
      EXPECT_TRUE(done[i][0].status().IsNotFound())
          << done[i][0].status().ToString();
    }
  }
  S3Stats stats = GetS3Stats(*store);
  EXPECT_EQ(stats.transfers - before, static_cast<int64_t>(keys.size()));
  EXPECT_GT(stats.max_in_flight, 1) << "HeadMany did not overlap requests";
  EXPECT_LE(stats.max_in_flight, 8);
}

TEST_F(S3StoreTest, GetManyWithConcurrencyOneRunsOneAtATime) {
  ObjectStore* store = Open(std::string("s3://") + kBucket,
                            [](S3Options& s) { s.max_concurrency = 1; });
  std::vector<ObjectKey> keys;
  for (int i = 0; i < 20; ++i) {
    std::string data = Pattern(50 * kKiB, 7 + i);
    keys.push_back(KeyOf("t1", data));
    ASSERT_TRUE(store->Put(keys.back(), data).ok());
  }
  int ok = 0;
  int nested_heads = 0;
  std::vector<ObjectStore::GetRequest> requests;
  for (const ObjectKey& k : keys) {
    requests.push_back({k, [](std::string_view) { return Status::OK(); },
                        [&, k](Status s) {
                          ok += s.ok();
                          // done may call back into the store.
                          nested_heads += store->Head(k).ok();
                        }});
  }
  store->GetMany(requests);
  EXPECT_EQ(ok, 20);
  EXPECT_EQ(nested_heads, 20);
  EXPECT_EQ(GetS3Stats(*store).max_in_flight, 1);
}

TEST_F(S3StoreTest, PrefixesIsolateStores) {
  ObjectStore* root = Open();
  ObjectStore* a = Open(std::string("s3://") + kBucket + "/env/a");
  ObjectStore* b = Open(std::string("s3://") + kBucket + "/env/b/");
  ObjectKey ka = KeyOf("t1", "in a"), kb = KeyOf("t1", "in b"),
            kr = KeyOf("t1", "in root");
  ASSERT_TRUE(a->Put(ka, "in a").ok());
  ASSERT_TRUE(b->Put(kb, "in b").ok());
  ASSERT_TRUE(root->Put(kr, "in root").ok());
  EXPECT_EQ(ListAll(a, "t1"),
            (std::map<std::string, uint64_t>{{ka.digest, 4}}));
  EXPECT_EQ(ListAll(b, "t1"),
            (std::map<std::string, uint64_t>{{kb.digest, 4}}));
  EXPECT_EQ(ListAll(root, "t1"),
            (std::map<std::string, uint64_t>{{kr.digest, 7}}));
  EXPECT_TRUE(Fetch(a, kb).status.IsNotFound());
  EXPECT_TRUE(Fetch(root, ka).status.IsNotFound());
  ASSERT_TRUE((*b->DeleteMany({ka, kb}))[0].ok());
  EXPECT_TRUE(Fetch(a, ka).status.ok()) << "b's delete reached a's object";
  // The object really is at <prefix>/<tenant>/sha256/<hex[0:2]>/<hex>.
  std::string hex = ka.digest.substr(7);
  std::string path = server_->data_dir() + "/" + kBucket + "/env/a/t1/sha256/" +
                     hex.substr(0, 2) + "/" + hex + "._S3rver_object";
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
}

TEST_F(S3StoreTest, VirtualHostAddressing) {
  ObjectStore* store =
      Open(std::string("s3://") + kBucket + "/vh", [&](S3Options& s) {
        s.endpoint = server_->VirtualHostEndpoint();
        s.force_path_style = false;
      });
  std::string data = Pattern(200 * kKiB, 5);
  ObjectKey key = KeyOf("t1", data);
  Status put = store->Put(key, data);
  ASSERT_TRUE(put.ok()) << put.ToString();
  Fetched f = Fetch(store, key);
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_TRUE(f.data == data);
  EXPECT_EQ(ListAll(store, "t1").size(), 1u);
  ASSERT_TRUE((*store->DeleteMany({key}))[0].ok());
  EXPECT_TRUE(store->Head(key).status().IsNotFound());
  // The same object as seen path-style: virtual-host requests went to the
  // bucket, not to a bucket named after the host.
  ObjectStore* path_style = Open(std::string("s3://") + kBucket + "/vh");
  ASSERT_TRUE(store->Put(key, data).ok());
  EXPECT_TRUE(Fetch(path_style, key).status.ok());
}

// awscli (installed by make deps) as an independent client: what the store
// writes it reads, and what it writes the store reads.
TEST_F(S3StoreTest, AwsCliCrossCheck) {
  ObjectStore* store = Open(std::string("s3://") + kBucket + "/cli");
  std::string dir = server_->data_dir() + "-cli";
  std::filesystem::create_directories(dir);
  auto aws = [&](const std::string& args) { return AwsCli(args); };
  std::string mine = Pattern(2 * kMiB + 17, 21);
  ObjectKey mine_key = KeyOf("t1", mine);
  ASSERT_TRUE(store->Put(mine_key, mine).ok());
  std::string hex = mine_key.digest.substr(7);
  ASSERT_TRUE(aws("get-object --bucket " + std::string(kBucket) +
                  " --key cli/t1/sha256/" + hex.substr(0, 2) + "/" + hex + " " +
                  dir + "/got"));
  std::ifstream got_in(dir + "/got", std::ios::binary);
  std::stringstream got;
  got << got_in.rdbuf();
  EXPECT_TRUE(got.str() == mine) << "awscli read different bytes";

  std::string theirs = Pattern(300 * kKiB + 1, 22);
  std::ofstream(dir + "/theirs", std::ios::binary) << theirs;
  ObjectKey theirs_key = KeyOf("t1", theirs);
  std::string th = theirs_key.digest.substr(7);
  ASSERT_TRUE(aws("put-object --bucket " + std::string(kBucket) +
                  " --key cli/t1/sha256/" + th.substr(0, 2) + "/" + th +
                  " --body " + dir + "/theirs"));
  Fetched f = Fetch(store, theirs_key);
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_TRUE(f.data == theirs);
  EXPECT_EQ(*store->Head(theirs_key), theirs.size());
  EXPECT_EQ(ListAll(store, "t1").size(), 2u);
  std::filesystem::remove_all(dir);
}

// The settings are checked by the configuration
// (tests/daemon/config_check_test.cc); the store itself refuses only an
// endpoint it cannot parse, and does not echo it.
TEST(S3StoreConfigTest, RefusesAnEndpointItCannotParseWithoutEchoingIt) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  StoreUrl url = *ParseStoreUrl("s3://bucket-x");
  S3Options o;
  o.access_key_id = "AKIA";
  o.secret_access_key = kSecret;
  for (std::string endpoint : {std::string("http://k:") + kSecret + "@h",
                               std::string("ftp://") + kSecret}) {
    o.endpoint = endpoint;
    Status st = NewS3Store(url, o, loop).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_EQ(st.message().find(kSecret), std::string::npos) << st.ToString();
  }
  o.endpoint = "http://127.0.0.1:9";
  EXPECT_TRUE(NewS3Store(url, o, loop).ok());
  ev_loop_destroy(loop);
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
