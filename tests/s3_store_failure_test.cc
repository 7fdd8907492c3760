// The s3:// store when the server fails: killed mid-transfer and
// restarted, stalled, missing bucket, unknown credentials.
#if AWC_WITH_S3

#include <algorithm>
#include <chrono>

#include "tests/support/s3_fixture.h"

namespace awc::store::s3test {
namespace {

TEST_F(S3StoreTest, ServerStoppedMidGetManyIsTransientAndRecovers) {
  ObjectStore* store = Open(std::string("s3://") + kBucket,
                            [](S3Options& s) { s.max_concurrency = 8; });
  std::vector<std::string> datas;
  std::vector<ObjectKey> keys;
  for (int i = 0; i < 40; ++i) {
    datas.push_back(Pattern(512 * kKiB, 300 + i));
    keys.push_back(KeyOf("t1", datas.back()));
    ASSERT_TRUE(store->Put(keys.back(), datas.back()).ok());
  }
  bool killed = false;
  std::vector<Status> results(keys.size());
  std::vector<int> calls(keys.size());
  std::vector<ObjectStore::GetRequest> requests;
  for (size_t i = 0; i < keys.size(); ++i) {
    requests.push_back({keys[i],
                        [&](std::string_view) {
                          if (!killed) {
                            killed = true;
                            server_->Kill();
                          }
                          return Status::OK();
                        },
                        [&, i](Status s) {
                          results[i] = std::move(s);
                          ++calls[i];
                        }});
  }
  store->GetMany(requests);
  ASSERT_TRUE(killed);
  int transient = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(calls[i], 1);
    EXPECT_TRUE(results[i].ok() || results[i].IsTransient())
        << results[i].ToString();
    transient += results[i].IsTransient();
  }
  EXPECT_GT(transient, 30)
      << "requests after the kill did not fail transiently";
  Fetched down = Fetch(store, keys[0]);
  EXPECT_TRUE(down.status.IsTransient()) << down.status.ToString();
  EXPECT_EQ(down.status.message().find(kSecret), std::string::npos);

  ASSERT_TRUE(server_->Restart());
  for (size_t i = 0; i < keys.size(); ++i)
    results[i] = Status::Internal("unset");
  std::fill(calls.begin(), calls.end(), 0);
  killed = true;  // no more kills
  store->GetMany(requests);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(calls[i], 1);
    EXPECT_TRUE(results[i].ok()) << results[i].ToString();
  }
  Fetched up = Fetch(store, keys[3]);
  ASSERT_TRUE(up.status.ok()) << up.status.ToString();
  EXPECT_TRUE(up.data == datas[3]);
}

TEST_F(S3StoreTest, StalledServerTimesOutTransiently) {
  ObjectStore* store = Open(std::string("s3://") + kBucket,
                            [](S3Options& s) { s.timeout_ms = 500; });
  ObjectKey key = KeyOf("t1", "stall");
  ASSERT_TRUE(store->Put(key, "stall").ok());
  server_->Pause();
  auto start = std::chrono::steady_clock::now();
  Fetched f = Fetch(store, key);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  server_->Resume();
  EXPECT_TRUE(f.status.IsTransient()) << f.status.ToString();
  EXPECT_NE(f.status.message().find("imeout"), std::string::npos)
      << f.status.ToString();
  EXPECT_LT(secs, 5.0);
  Fetched again = Fetch(store, key);
  EXPECT_TRUE(again.status.ok()) << again.status.ToString();
}

TEST_F(S3StoreTest, MissingBucketAndBadCredentialsArePermanent) {
  ObjectStore* store = Open("s3://no-such-bucket");
  ObjectKey key = KeyOf("t1", "x");
  std::vector<Status> errors = {
      Fetch(store, key).status, store->Head(key).status(), store->Put(key, "x"),
      store->DeleteMany({key}).status(),
      store->List("t1",
                  [](const std::string&, uint64_t) { return Status::OK(); })};
  for (const Status& s : errors) {
    EXPECT_TRUE(s.IsFailedPrecondition()) << s.ToString();
    EXPECT_NE(s.message().find("no-such-bucket"), std::string::npos)
        << s.ToString();
    EXPECT_EQ(s.message().find(kSecret), std::string::npos);
  }

  ObjectStore* bad_key = Open(std::string("s3://") + kBucket,
                              [](S3Options& s) { s.access_key_id = "NOBODY"; });
  Status denied = bad_key->Put(key, "x");
  EXPECT_TRUE(denied.IsFailedPrecondition()) << denied.ToString();
  EXPECT_NE(denied.message().find("InvalidAccessKeyId"), std::string::npos);
  EXPECT_EQ(denied.message().find(kSecret), std::string::npos);
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
