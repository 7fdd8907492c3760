// The s3:// store's requests checked against an independent SigV4
// verifier (tests/support/sigv4_proxy.py, standard-library Python that
// reproduces AWS's published example signature) in front of s3rver, which
// does not check SigV4 itself. What real S3 would reject fails here too.
#if AWC_WITH_S3

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/harness.h"
#include "tests/support/s3_fixture.h"

namespace awc::store::s3test {
namespace {

using awc::testing::DaemonProcess;
using awc::testing::TempDir;
using awc::testing::WaitUntil;

// A secret with the characters that trip up canonicalisation and URL
// handling, and a region other than the default.
constexpr char kOddSecret[] = "wJalr/K7MD+ENG bPx=RfiCY";
constexpr char kRegion[] = "eu-west-3";

class SigV4Test : public S3StoreTest {
 protected:
  // Response bodies no faster than this many bytes per second (0: no limit).
  virtual int Rate() const { return 0; }

  void SetUp() override {
    S3StoreTest::SetUp();
    RegisterSecret(kOddSecret);
    std::string script =
        std::string(AWC_SOURCE_DIR) + "/tests/support/sigv4_proxy.py";
    DaemonProcess::Options o;
    o.binary = "/usr/bin/env";
    o.args = {"python3",    script,
              "--upstream", "127.0.0.1:" + std::to_string(server_->port()),
              "--key-id",   S3Server::kAccessKeyId,
              "--secret",   kOddSecret,
              "--region",   kRegion,
              "--log",      log_.path() + "/requests",
              "--rate",     std::to_string(Rate())};
    proxy_ = std::make_unique<DaemonProcess>(o);
    ASSERT_TRUE(WaitUntil([&] {
      return proxy_->Stdout().starts_with("port ") || !proxy_->running();
    })) << proxy_->Stderr();
    port_ = std::stoi(proxy_->Stdout().substr(5));
  }

  ObjectStore* OpenThroughProxy(const std::string& secret,
                                const std::string& url,
                                int64_t timeout_ms = 20000) {
    return Open(url, [&](S3Options& s) {
      s.endpoint = "http://127.0.0.1:" + std::to_string(port_);
      s.region = kRegion;
      s.secret_access_key = secret;
      s.timeout_ms = timeout_ms;
    });
  }

  std::vector<std::string> Requests() {
    std::ifstream in(log_.path() + "/requests");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  TempDir log_;
  std::unique_ptr<DaemonProcess> proxy_;
  int port_ = 0;
};

TEST_F(SigV4Test, EveryOperationIsCorrectlySigned) {
  ObjectStore* store = OpenThroughProxy(
      kOddSecret, std::string("s3://") + kBucket + "/pre+fix/deep");
  ASSERT_NE(store, nullptr);
  std::string small = "small object";
  std::string big = Pattern(300 * kKiB + 3, 11);
  ObjectKey a = KeyOf("t1", small), b = KeyOf("t1", big);
  ASSERT_TRUE(store->Put(a, small).ok());
  TempDir files;
  files.Write("big", big);
  Status put_file = store->PutFile(b, files.path() + "/big");
  ASSERT_TRUE(put_file.ok()) << put_file.ToString();
  EXPECT_EQ(Fetch(store, a).data, small);
  EXPECT_EQ(Fetch(store, b).data, big);
  EXPECT_EQ(*store->Head(b), big.size());
  EXPECT_EQ(ListAll(store, "t1").size(), 2u);
  ObjectKey absent = KeyOf("t1", "never written");
  EXPECT_TRUE(Fetch(store, absent).status.IsNotFound());
  // One key per request: s3rver 3.7.1 fails a DeleteObjects that empties
  // several of its directories at once (see s3_fixture.h).
  for (const ObjectKey& key : {a, b, absent}) {
    auto deleted = store->DeleteMany({key});
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    EXPECT_TRUE(deleted->at(0).ok()) << deleted->at(0).ToString();
  }
  EXPECT_TRUE(ListAll(store, "t1").empty());

  std::vector<std::string> log = Requests();
  int verified = 0;
  for (const std::string& line : log) {
    EXPECT_TRUE(line.starts_with("OK ")) << line;
    verified += line.starts_with("OK ") ? 1 : 0;
  }
  // Put, PutFile, 2 Gets, Head, List, Get of the absent object (and its
  // bucket check), 3 DeleteObjects, List.
  EXPECT_GE(verified, 11);
}

TEST_F(SigV4Test, AWrongSecretIsRejectedAsAPermanentError) {
  ObjectStore* store =
      OpenThroughProxy("not-the-secret", std::string("s3://") + kBucket);
  ASSERT_NE(store, nullptr);
  Status s = store->Put(KeyOf("t1", "x"), "x");
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("SignatureDoesNotMatch"), std::string::npos)
      << s.ToString();
  std::vector<std::string> log = Requests();
  ASSERT_FALSE(log.empty());
  EXPECT_TRUE(log.front().starts_with("MISMATCH PUT")) << log.front();
}

// A slow link: 200 KiB/s from the proxy.
class SlowLinkTest : public SigV4Test {
 protected:
  int Rate() const override { return 200 * 1024; }
};

TEST_F(SlowLinkTest, ALargeObjectThatKeepsMovingIsNotCutOff) {
  // AWC_S3_TIMEOUT_MS of 2 s, an object that takes about 6 s to arrive:
  // the timeout is for a stalled transfer, not for a long one. (With 1 s,
  // a loaded machine that paused the proxy for a second failed it.)
  ObjectStore* store = OpenThroughProxy(
      kOddSecret, std::string("s3://") + kBucket, /*timeout_ms=*/2000);
  ASSERT_NE(store, nullptr);
  std::string big = Pattern(1200 * kKiB, 3);
  ObjectKey key = KeyOf("t1", big);
  ASSERT_TRUE(store->Put(key, big).ok());
  Fetched f = Fetch(store, key);
  ASSERT_TRUE(f.status.ok()) << f.status.ToString();
  EXPECT_EQ(f.data, big);
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
