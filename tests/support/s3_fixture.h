// Shared by the tests of the s3:// store against s3rver: a fixture with a
// fresh server and bucket per test, and small helpers.
#ifndef AWC_TESTS_SUPPORT_S3_FIXTURE_H_
#define AWC_TESTS_SUPPORT_S3_FIXTURE_H_

#include <ev.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/redact.h"
#include "digest/sha256.h"
#include "store/object_store.h"
#include "store/s3/s3_store.h"
#include "store/store_conformance.h"
#include "store/store_url.h"
#include "tests/support/s3_server.h"

namespace awc::store::s3test {

using awc::testing::S3Server;

inline constexpr char kBucket[] = "awc-test";
inline constexpr char kSecret[] = "s3-test-secret-never-shown";
inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * kKiB;

// Deterministic contents and their keys, as the conformance suite makes
// them (store_conformance_test.cc is compiled into the same binary).
using storetest::Pattern;
inline ObjectKey KeyOf(const std::string& tenant, std::string_view data) {
  return storetest::KeyFor(tenant, data);
}

using storetest::Fetch;
using storetest::Fetched;
using storetest::ListAll;

// s3rver 3.7.1 answers DeleteObjects with 500 InternalError when a request
// empties one of its directories (it removes the directory once per key,
// concurrently). One anchor object in each of the 256
// <tenant>/sha256/<hex[0:2]>/ directories keeps them from emptying.
// Returns the anchors' digests and sizes.
inline std::map<std::string, uint64_t> PutAnchors(ObjectStore* store,
                                                  const std::string& tenant) {
  std::map<std::string, uint64_t> anchors;
  std::map<std::string, bool> fans;
  for (int n = 0; anchors.size() < 256; ++n) {
    std::string data = "anchor " + std::to_string(n);
    ObjectKey key = KeyOf(tenant, data);
    if (!fans.emplace(key.digest.substr(7, 2), true).second) continue;
    Status s = store->Put(key, data);
    EXPECT_TRUE(s.ok()) << s.ToString();
    anchors[key.digest] = data.size();
  }
  return anchors;
}

// A fresh s3rver with bucket kBucket per test, a fresh event loop, and
// stores opened on them with Open().
class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterSecret(kSecret);
    loop_ = ev_loop_new(EVFLAG_AUTO);
    server_ = std::make_unique<S3Server>();
    ASSERT_TRUE(server_->ok());
    ASSERT_TRUE(server_->CreateBucket(kBucket));
  }

  void TearDown() override {
    stores_.clear();
    ev_loop_destroy(loop_);
    if (HasFailure() && server_ && server_->ok()) {
      std::cerr << "s3rver log:\n" << server_->Log() << "\n";
    }
    server_.reset();
    ClearSecrets();
  }

  // A store on the test server; `tweak` adjusts the settings; its PutFile
  // reads files through `env`.
  ObjectStore* Open(const std::string& url = std::string("s3://") + kBucket,
                    const std::function<void(S3Options&)>& tweak = {},
                    Env* env = Env::Default()) {
    S3Options s;
    s.endpoint = server_->Endpoint();
    s.force_path_style = true;
    s.access_key_id = S3Server::kAccessKeyId;
    s.secret_access_key = kSecret;
    s.max_concurrency = 4;
    s.timeout_ms = 20000;
    if (tweak) tweak(s);
    Result<StoreUrl> parsed = ParseStoreUrl(url);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (!parsed.ok()) return nullptr;
    Result<std::unique_ptr<ObjectStore>> store =
        NewS3Store(*parsed, s, loop_, env);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    stores_.push_back(std::move(*store));
    return stores_.back().get();
  }

  // Stores `n` small distinct objects for `tenant`; their digests and sizes.
  std::map<std::string, uint64_t> PutMany(ObjectStore* store,
                                          const std::string& tenant, int n) {
    std::map<std::string, uint64_t> out;
    for (int i = 0; i < n; ++i) {
      std::string data = tenant + " object " + std::to_string(i);
      ObjectKey key = KeyOf(tenant, data);
      Status s = store->Put(key, data);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) break;
      out[key.digest] = data.size();
    }
    return out;
  }

  // Runs `aws s3api ARGS` against the test server (awscli, an independent
  // client); false, and a test failure with its output, when it fails.
  bool AwsCli(const std::string& args) {
    if (std::system("command -v aws >/dev/null 2>&1") != 0) {
      ADD_FAILURE() << "awscli is not installed (make deps installs it)";
      return false;
    }
    std::string out_path = server_->data_dir() + "-cli.out";
    std::string cmd =
        "env AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=anything "
        "AWS_DEFAULT_REGION=us-east-1 AWS_PAGER= AWS_CONFIG_FILE=/dev/null "
        "AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true "
        "aws --endpoint-url " +
        server_->Endpoint() + " s3api " + args + " >" + out_path + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream in(out_path);
    std::stringstream out;
    out << in.rdbuf();
    std::remove(out_path.c_str());
    EXPECT_EQ(rc, 0) << cmd << "\n" << out.str();
    return rc == 0;
  }

  struct ev_loop* loop_ = nullptr;
  std::unique_ptr<S3Server> server_;
  std::vector<std::unique_ptr<ObjectStore>> stores_;
};

}  // namespace awc::store::s3test

#endif  // AWC_TESTS_SUPPORT_S3_FIXTURE_H_
