#include "store/store_conformance.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include "common/env.h"
#include "digest/sha256.h"
#include "store/file_store.h"
#include "store/memory_store.h"

namespace awc::store::storetest {

ScopedTempDir::ScopedTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  if (base == nullptr || *base == '\0') base = getenv("TMPDIR");
  if (base == nullptr || *base == '\0') base = "/tmp";
  std::string tmpl = std::string(base) + "/awc-test-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << strerror(errno);
  }
  path_ = tmpl;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

size_t ScopedTempDir::Entries() const {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(path_)) {
    ++n;
  }
  return n;
}

Fetched Fetch(ObjectStore* store, const ObjectKey& key) {
  Fetched f;
  f.status = store->Get(key, [&f](std::string_view chunk) {
    f.data.append(chunk);
    f.chunk_sizes.push_back(chunk.size());
    return Status::OK();
  });
  return f;
}

std::map<std::string, uint64_t> ListAll(ObjectStore* store,
                                        const std::string& tenant) {
  std::map<std::string, uint64_t> out;
  Status s = store->List(tenant, "", [&](const ObjectStore::ListedKey& k) {
    if (k.digest.empty()) return Status::OK();  // not an object
    EXPECT_TRUE(out.emplace(k.digest, k.size).second)
        << "listed twice: " << k.digest;
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

ObjectKey KeyFor(std::string_view tenant, std::string_view content) {
  Result<ObjectKey> key =
      MakeKey(tenant, "sha256:" + digest::Sha256::HexOf(content));
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  return key.ok() ? *key : ObjectKey{};
}

std::string Pattern(size_t size, uint32_t seed) {
  std::string out(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return out;
}

void StoreConformanceTest::SetUp() {
  Result<std::unique_ptr<TestStore>> opened = GetParam().open();
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  test_store_ = std::move(*opened);
}

void StoreConformanceTest::TearDown() { test_store_.reset(); }

namespace {

constexpr size_t kKiB = 1024;

class FileTestStore : public TestStore {
 public:
  Status Open() {
    // An existing directory: the file store does not make its root.
    std::string root = dir_.path() + "/root";
    AWC_RETURN_IF_ERROR(Env::Default()->CreateDirs(root));
    AWC_ASSIGN_OR_RETURN(store_, NewFileStore(root));
    return Status::OK();
  }
  ObjectStore* store() override { return store_.get(); }

 private:
  ScopedTempDir dir_;
  std::unique_ptr<ObjectStore> store_;
};

Result<std::unique_ptr<TestStore>> OpenMemory() {
  return std::unique_ptr<TestStore>(
      std::make_unique<OwnedTestStore>(NewMemoryStore()));
}

Result<std::unique_ptr<TestStore>> OpenFile() {
  auto store = std::make_unique<FileTestStore>();
  AWC_RETURN_IF_ERROR(store->Open());
  return std::unique_ptr<TestStore>(std::move(store));
}

// After a refused PutFile of `hashed` (the content the key names): nothing
// wrong under `key`. S3 discards a PUT whose body ends short of its
// Content-Length; s3rver, the test server, may keep the bytes it received,
// so there all that can be checked is that no whole object other than
// `hashed` arrived. (A file that grew after hashing may have sent all of
// `hashed` before the extra byte was seen: that object is right.)
void ExpectNotStored(ObjectStore* store, const ObjectKey& key,
                     const std::string& hashed) {
  Result<uint64_t> head = store->Head(key);
  if (std::string(store->scheme()) == "s3" && head.ok()) {
    if (*head >= hashed.size()) {
      EXPECT_EQ(Fetch(store, key).data, hashed);
    }
  } else {
    EXPECT_TRUE(head.status().IsNotFound()) << head.status().ToString();
  }
}

}  // namespace

TEST_P(StoreConformanceTest, SchemeMatches) {
  EXPECT_EQ(std::string(store()->scheme()), GetParam().name);
  EXPECT_GE(store()->parallelism(), 1);
}

TEST_P(StoreConformanceTest, PutThenGetReturnsTheSameBytesInOrder) {
  const size_t sizes[] = {
      0, 1, 64 * kKiB - 1, 64 * kKiB, 64 * kKiB + 1, 1024 * kKiB + 7};
  uint32_t seed = 1;
  for (size_t size : sizes) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::string data = Pattern(size, seed++);
    ObjectKey key = KeyFor("t1", data);
    ASSERT_TRUE(store()->Put(key, data).ok());
    Fetched f = Fetch(store(), key);
    ASSERT_TRUE(f.status.ok()) << f.status.ToString();
    EXPECT_EQ(f.data.size(), size);
    EXPECT_TRUE(f.data == data) << "bytes differ or arrived out of order";
    Result<uint64_t> head = store()->Head(key);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(*head, size);
  }
}

TEST_P(StoreConformanceTest, AbsentObjectIsNotFound) {
  ObjectKey key = KeyFor("t1", "never stored");
  Fetched f = Fetch(store(), key);
  EXPECT_TRUE(f.status.IsNotFound()) << f.status.ToString();
  EXPECT_NE(f.status.message().find(key.digest), std::string::npos)
      << f.status.message();
  EXPECT_TRUE(f.chunk_sizes.empty());
  EXPECT_TRUE(store()->Head(key).status().IsNotFound());
}

TEST_P(StoreConformanceTest, SinkErrorAbortsGet) {
  std::string data = Pattern(300 * kKiB, 7);
  ObjectKey key = KeyFor("t1", data);
  ASSERT_TRUE(store()->Put(key, data).ok());
  int calls = 0;
  Status s = store()->Get(key, [&](std::string_view) {
    ++calls;
    return Status::FailedPrecondition("sink is full");
  });
  EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
  EXPECT_NE(s.message().find("sink is full"), std::string::npos);
  EXPECT_EQ(calls, 1);
}

TEST_P(StoreConformanceTest, PutFileStoresTheFile) {
  ScopedTempDir tmp;
  std::string data = Pattern(700 * kKiB + 3, 11);
  std::string path = tmp.path() + "/upload";
  std::ofstream(path, std::ios::binary) << data;
  ObjectKey key = KeyFor("t1", data);
  Status s = store()->PutFile(key, path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Fetched f = Fetch(store(), key);
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_TRUE(f.data == data);
  Result<uint64_t> head = store()->Head(key);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, data.size());
}

TEST_P(StoreConformanceTest, PutFileOfMissingSourceFailsButNotAsNotFound) {
  ObjectKey key = KeyFor("t1", "x");
  Status s = store()->PutFile(key, "/nonexistent/awc/source");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.IsNotFound()) << "kNotFound is for absent objects";
  EXPECT_TRUE(store()->Head(key).status().IsNotFound());
}

TEST_P(StoreConformanceTest, PutFileRefusesContentThatDoesNotHashToTheKey) {
  // The file changed after its digest was computed: nothing is stored.
  ScopedTempDir tmp;
  std::string hashed = Pattern(300 * kKiB + 5, 21);
  std::string path = tmp.path() + "/upload";
  std::string changed = hashed;
  changed[1000] ^= 1;
  std::ofstream(path, std::ios::binary) << changed;
  ObjectKey key = KeyFor("t1", hashed);
  Status s = store()->PutFile(key, path);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  ExpectNotStored(store(), key, hashed);
  if (std::string(store()->scheme()) != "s3") {
    EXPECT_TRUE(Fetch(store(), key).status.IsNotFound());
    EXPECT_TRUE(ListAll(store(), "t1").empty());
  }
}

TEST_P(StoreConformanceTest, PutFileRefusesAFileThatGrewAfterHashing) {
  ScopedTempDir tmp;
  std::string hashed = Pattern(64 * kKiB, 22);
  std::string path = tmp.path() + "/upload";
  std::ofstream(path, std::ios::binary) << hashed << "x";
  ObjectKey key = KeyFor("t1", hashed);
  EXPECT_TRUE(store()->PutFile(key, path).IsCorruption());
  ExpectNotStored(store(), key, hashed);
  // And the empty file: verified too.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "";
  EXPECT_TRUE(store()->PutFile(KeyFor("t1", "not empty"), path).IsCorruption());
  Status empty = store()->PutFile(KeyFor("t1", ""), path);
  EXPECT_TRUE(empty.ok()) << empty.ToString();
}

TEST_P(StoreConformanceTest, TheMarkerIsWrittenAndReadBack) {
  EXPECT_TRUE(store()->ReadMarker().status().IsNotFound());
  ASSERT_TRUE(store()->WriteMarker("{\"format\":\"x\"}\n").ok());
  Result<std::string> m = store()->ReadMarker();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*m, "{\"format\":\"x\"}\n");
  ASSERT_TRUE(store()->WriteMarker("again").ok());
  EXPECT_EQ(*store()->ReadMarker(), "again");
  // The marker is no tenant's object.
  ASSERT_TRUE(store()->Put(KeyFor("t1", "a"), "a").ok());
  EXPECT_EQ(ListAll(store(), "t1").size(), 1u);
  // One too large to be a marker is not read whole.
  ASSERT_TRUE(
      store()
          ->WriteMarker(std::string(ObjectStore::kMaxMarkerBytes + 1, ' '))
          .ok());
  Result<std::string> big = store()->ReadMarker();
  EXPECT_FALSE(big.ok());
  EXPECT_FALSE(big.status().IsNotFound()) << big.status().ToString();
}

TEST_P(StoreConformanceTest, OverwriteIsFine) {
  std::string data = Pattern(100 * kKiB, 3);
  ObjectKey key = KeyFor("t1", data);
  ASSERT_TRUE(store()->Put(key, data).ok());
  ASSERT_TRUE(store()->Put(key, data).ok());
  Fetched f = Fetch(store(), key);
  ASSERT_TRUE(f.status.ok());
  EXPECT_TRUE(f.data == data);
  EXPECT_EQ(ListAll(store(), "t1").size(), 1u);
}

TEST_P(StoreConformanceTest, DeleteManyOfPresentAndAbsentKeys) {
  ObjectKey a = KeyFor("t1", "a"), b = KeyFor("t1", "b"),
            absent = KeyFor("t1", "absent"), keep = KeyFor("t1", "keep");
  ASSERT_TRUE(store()->Put(a, "a").ok());
  ASSERT_TRUE(store()->Put(b, "b").ok());
  ASSERT_TRUE(store()->Put(keep, "keep").ok());
  Result<std::vector<Status>> r = store()->DeleteMany({a, absent, b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  for (const Status& s : *r) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(store()->Head(a).status().IsNotFound());
  EXPECT_TRUE(store()->Head(b).status().IsNotFound());
  EXPECT_TRUE(Fetch(store(), a).status.IsNotFound());
  EXPECT_EQ(ListAll(store(), "t1"),
            (std::map<std::string, uint64_t>{{keep.digest, 4}}));

  Result<std::vector<Status>> none = store()->DeleteMany({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreConformanceTest, ListReturnsExactlyTheTenantsObjects) {
  std::map<std::string, uint64_t> want;
  for (size_t size : {size_t{0}, size_t{5}, 70 * kKiB}) {
    std::string data = Pattern(size, static_cast<uint32_t>(size) + 100);
    ObjectKey key = KeyFor("t1", data);
    ASSERT_TRUE(store()->Put(key, data).ok());
    want[key.digest] = size;
  }
  // Other tenants, one of them named with t1 as a prefix.
  ASSERT_TRUE(store()->Put(KeyFor("t1-x", "other"), "other").ok());
  ASSERT_TRUE(store()->Put(KeyFor("t2", "other2"), "other2").ok());

  EXPECT_EQ(ListAll(store(), "t1"), want);
  EXPECT_EQ(ListAll(store(), "t1-x").size(), 1u);
  EXPECT_TRUE(ListAll(store(), "nobody").empty());
  Status bad = store()->List(
      "../t1", "", [](const ObjectStore::ListedKey&) { return Status::OK(); });
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
}

// Inventory reconciliation merges a listing with the inventory in digest
// order, resumes after the last digest it finished, and ages what it
// finds by the store's own clock.
TEST_P(StoreConformanceTest, ListGoesInDigestOrderFromAnyPointWithTimes) {
  std::vector<std::string> digests;
  int64_t before = static_cast<int64_t>(time(nullptr)) - 5;
  for (int i = 0; i < 40; ++i) {
    std::string data = "ordered " + std::to_string(i);
    ObjectKey key = KeyFor("t1", data);
    ASSERT_TRUE(store()->Put(key, data).ok());
    digests.push_back(key.digest);
  }
  int64_t after_put = static_cast<int64_t>(time(nullptr)) + 5;
  std::sort(digests.begin(), digests.end());
  auto list_from = [&](const std::string& after) {
    std::vector<std::string> seen;
    Status s = store()->List("t1", after, [&](const ObjectStore::ListedKey& k) {
      if (k.digest.empty()) return Status::OK();
      EXPECT_GE(k.modified, before) << k.digest;
      EXPECT_LE(k.modified, after_put) << k.digest;
      EXPECT_EQ(k.name, RelativeKey({"t1", k.digest}).substr(3));
      seen.push_back(k.digest);
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return seen;
  };
  EXPECT_EQ(list_from(""), digests);
  std::vector<std::string> tail(digests.begin() + 17, digests.end());
  EXPECT_EQ(list_from(digests[16]), tail);
  EXPECT_TRUE(list_from(digests.back()).empty());
  // A digest that is not stored resumes after where it would be.
  std::string absent = "sha256:" + std::string(64, '8');
  std::vector<std::string> greater;
  for (const std::string& d : digests) {
    if (d > absent) greater.push_back(d);
  }
  EXPECT_EQ(list_from(absent), greater);
  EXPECT_TRUE(
      store()
          ->List("t1", "sha256:nothex",
                 [](const ObjectStore::ListedKey&) { return Status::OK(); })
          .IsInvalidArgument());
}

TEST_P(StoreConformanceTest, ListStopsAtCallbackError) {
  for (const char* data : {"1", "2", "3"}) {
    ASSERT_TRUE(store()->Put(KeyFor("t1", data), data).ok());
  }
  int calls = 0;
  Status s = store()->List("t1", "", [&](const ObjectStore::ListedKey&) {
    ++calls;
    return Status::Corruption("stop here");
  });
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(calls, 1);
}

TEST_P(StoreConformanceTest, ListCallbackMayDeleteWhatItIsGiven) {
  for (int i = 0; i < 20; ++i) {
    std::string data = "object " + std::to_string(i);
    ASSERT_TRUE(store()->Put(KeyFor("t1", data), data).ok());
  }
  int listed = 0;
  Status s = store()->List("t1", "", [&](const ObjectStore::ListedKey& k) {
    ++listed;
    Result<ObjectKey> key = MakeKey("t1", k.digest);
    EXPECT_TRUE(key.ok());
    Result<std::vector<Status>> r = store()->DeleteMany({*key});
    EXPECT_TRUE(r.ok() && r->size() == 1 && (*r)[0].ok());
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(listed, 20);
  EXPECT_TRUE(ListAll(store(), "t1").empty());
}

TEST_P(StoreConformanceTest, HeadManyCallsEachDoneOnceWithItsSize) {
  ObjectKey a = KeyFor("t1", Pattern(10, 1));
  ObjectKey b = KeyFor("t1", "");
  ASSERT_TRUE(store()->Put(a, Pattern(10, 1)).ok());
  ASSERT_TRUE(store()->Put(b, "").ok());
  std::vector<ObjectKey> keys = {a, KeyFor("t1", "absent"), b};
  std::vector<std::vector<Result<uint64_t>>> done(keys.size());
  std::vector<ObjectStore::HeadRequest> requests;
  for (size_t i = 0; i < keys.size(); ++i) {
    requests.push_back(
        {keys[i], [&done, i](Result<uint64_t> r) { done[i].push_back(r); }});
  }
  store()->HeadMany(requests);
  for (const auto& d : done) ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(done[0][0].ok()) << done[0][0].status().ToString();
  EXPECT_EQ(*done[0][0], 10u);
  EXPECT_TRUE(done[1][0].status().IsNotFound());
  ASSERT_TRUE(done[2][0].ok()) << done[2][0].status().ToString();
  EXPECT_EQ(*done[2][0], 0u);
}

TEST_P(StoreConformanceTest, GetManyCallsEachDoneOnceWithItsStatus) {
  std::vector<std::string> datas = {Pattern(10, 1), Pattern(200 * kKiB, 2), "",
                                    Pattern(64 * kKiB, 4)};
  std::vector<ObjectKey> keys;
  for (const std::string& d : datas) {
    keys.push_back(KeyFor("t1", d));
    ASSERT_TRUE(store()->Put(keys.back(), d).ok());
  }
  keys.insert(keys.begin() + 1, KeyFor("t1", "absent 1"));
  keys.push_back(KeyFor("t1", "absent 2"));
  const std::vector<bool> present = {true, false, true, true, true, false};

  std::vector<std::string> got(keys.size());
  std::vector<std::vector<Status>> done(keys.size());
  std::vector<ObjectStore::GetRequest> requests;
  for (size_t i = 0; i < keys.size(); ++i) {
    requests.push_back(ObjectStore::GetRequest{
        keys[i],
        [&got, i](std::string_view chunk) {
          got[i].append(chunk);
          return Status::OK();
        },
        [&done, i](Status s) { done[i].push_back(std::move(s)); }});
  }
  store()->GetMany(requests);

  size_t next_data = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    SCOPED_TRACE("request " + std::to_string(i));
    ASSERT_EQ(done[i].size(), 1u);
    if (present[i]) {
      EXPECT_TRUE(done[i][0].ok()) << done[i][0].ToString();
      EXPECT_TRUE(got[i] == datas[next_data++]);
    } else {
      EXPECT_TRUE(done[i][0].IsNotFound()) << done[i][0].ToString();
      EXPECT_TRUE(got[i].empty());
    }
  }
}

TEST_P(StoreConformanceTest, KeysNotMadeByMakeKeyAreRefused) {
  const std::string digest = KeyFor("t1", "x").digest;
  const ObjectKey bad[] = {
      {"../t1", digest},
      {"t1", "sha256:../../etc"},
      {"t1", ""},
      {"", digest},
      {"t1", "sha256:" + std::string(64, 'A')},
  };
  ScopedTempDir tmp;
  std::string source = tmp.path() + "/source";
  std::ofstream(source) << "x";
  for (const ObjectKey& key : bad) {
    SCOPED_TRACE(key.tenant_id + " " + key.digest);
    EXPECT_TRUE(store()->Put(key, "x").IsInvalidArgument());
    EXPECT_TRUE(store()->PutFile(key, source).IsInvalidArgument());
    EXPECT_TRUE(Fetch(store(), key).status.IsInvalidArgument());
    EXPECT_TRUE(store()->Head(key).status().IsInvalidArgument());
    Result<std::vector<Status>> r = store()->DeleteMany({key});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 1u);
    EXPECT_TRUE((*r)[0].IsInvalidArgument());
  }
  EXPECT_TRUE(ListAll(store(), "t1").empty());
}

INSTANTIATE_TEST_SUITE_P(Local, StoreConformanceTest,
                         ::testing::Values(StoreFactory{"memory", OpenMemory},
                                           StoreFactory{"file", OpenFile}),
                         StoreFactoryName);

TEST(StoreKeyTest, MakeKeyAcceptsWellFormedParts) {
  const std::string digest = "sha256:" + std::string(64, 'a');
  for (const std::string& tenant :
       {std::string("a"), std::string("0"), std::string("t_1-x"),
        std::string(63, 'z')}) {
    Result<ObjectKey> key = MakeKey(tenant, digest);
    ASSERT_TRUE(key.ok()) << tenant << ": " << key.status().ToString();
    EXPECT_EQ(key->tenant_id, tenant);
    EXPECT_EQ(key->digest, digest);
  }
}

TEST(StoreKeyTest, MakeKeyRejectsMalformedTenants) {
  const std::string digest = "sha256:" + std::string(64, 'a');
  for (const std::string& tenant :
       {std::string("../x"), std::string("A"), std::string(""),
        std::string(64, 'a'), std::string("-a"), std::string("_a"),
        std::string("a/b"), std::string("a.b"), std::string("a\0b", 3)}) {
    Result<ObjectKey> key = MakeKey(tenant, digest);
    EXPECT_TRUE(key.status().IsInvalidArgument()) << tenant;
    EXPECT_NE(key.status().message().find("tenant"), std::string::npos);
  }
}

TEST(StoreKeyTest, MakeKeyRejectsMalformedDigests) {
  const std::string hex(64, 'e');
  for (const std::string& digest :
       {"sha256:" + std::string(64, 'E'), "sha256:" + hex.substr(1),
        "sha256:" + hex + "0", "sha1:" + hex.substr(0, 40), "sha1:" + hex, hex,
        ":" + hex, "SHA256:" + hex, "sha256:" + hex.substr(2) + "/x",
        "sha256:" + std::string(64, 'g'), std::string("")}) {
    Result<ObjectKey> key = MakeKey("t1", digest);
    EXPECT_TRUE(key.status().IsInvalidArgument()) << digest;
    EXPECT_NE(key.status().message().find("digest"), std::string::npos);
  }
}

TEST(StoreKeyTest, RelativeKeyLayout) {
  const std::string hex =
      "ab" + std::string(30, '0') + std::string(31, 'f') + "1";
  Result<ObjectKey> key = MakeKey("tenant-1", "sha256:" + hex);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(RelativeKey(*key), "tenant-1/sha256/ab/" + hex);
}

}  // namespace awc::store::storetest
