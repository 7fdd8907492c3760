// The s3:// store when the server fails: killed mid-transfer and
// restarted, stalled, missing bucket, unknown credentials.
#if AWC_WITH_S3

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cas/closure.h"
#include "cas/manifest.h"
#include "testing/fault_env.h"
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

// PutFile reads its file through the store's Env, like every other file
// access: a file that cannot be opened is an I/O error and sends nothing;
// a read that fails mid-upload (EIO from a dying disk) is an I/O error
// that aborts the request before its declared length. (What a server keeps
// of an aborted request is its own: S3 keeps nothing, s3rver may keep what
// it got, so that is not asserted here; the next PutFile stores it whole.)
TEST_F(S3StoreTest, PutFileReadsThroughTheEnvAndAFailedReadIsAnIoError) {
  FaultEnv env(Env::Default());
  ObjectStore* store = Open(std::string("s3://") + kBucket, {}, &env);
  std::string path = server_->data_dir() + "-upload";
  std::string data = Pattern(3 * kMiB + 5, 11);
  std::ofstream(path, std::ios::binary) << data;
  ObjectKey key = KeyOf("t1", data);

  env.FailNth(FaultEnv::Op::kNewRandomAccessFile, 1, EACCES);
  Status denied = store->PutFile(key, path);
  EXPECT_EQ(denied.code(), Status::Code::kIoError) << denied.ToString();
  EXPECT_NE(denied.message().find("Permission denied"), std::string::npos)
      << denied.ToString();
  EXPECT_NE(denied.message().find(path), std::string::npos);
  EXPECT_TRUE(store->Head(key).status().IsNotFound());

  env.FailNth(FaultEnv::Op::kReadAt, 2, EIO);
  Status broken = store->PutFile(key, path);
  EXPECT_EQ(broken.code(), Status::Code::kIoError) << broken.ToString();
  EXPECT_NE(broken.message().find("Input/output error"), std::string::npos)
      << broken.ToString();

  Status s = store->PutFile(key, path);
  std::filesystem::remove(path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*store->Head(key), data.size());
  EXPECT_EQ(env.injected(), 2);
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
      store->List("t1", "",
                  [](const ObjectStore::ListedKey&) { return Status::OK(); })};
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

// An S3 endpoint gone wrong: a GET of `manifest_key` answers the manifest;
// any other GET answers 200 and then streams zeros for ever (chunked),
// until the client goes away. One connection at a time, on a thread.
class EndlessServer {
 public:
  EndlessServer(std::string manifest_key, std::string manifest)
      : manifest_key_(std::move(manifest_key)), manifest_(std::move(manifest)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr),
              0);
    EXPECT_EQ(listen(listen_fd_, 16), 0);
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~EndlessServer() {
    stop_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    close(listen_fd_);
    thread_.join();
  }
  std::string Endpoint() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  // Bytes of endless bodies sent so far.
  uint64_t streamed() const { return streamed_; }

 private:
  void Serve() {
    while (!stop_) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      Handle(fd);
      close(fd);
    }
  }
  // Answers every request on the connection in turn.
  void Handle(int fd) {
    std::string in;
    char buf[4096];
    for (;;) {
      size_t end;
      while ((end = in.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return;
        in.append(buf, static_cast<size_t>(n));
      }
      std::string head = in.substr(0, end);
      in.erase(0, end + 4);
      std::string line = head.substr(0, head.find("\r\n"));
      if (line.find(manifest_key_) != std::string::npos) {
        std::string resp = "HTTP/1.1 200 OK\r\nContent-Length: " +
                           std::to_string(manifest_.size()) + "\r\n\r\n" +
                           manifest_;
        if (!SendAll(fd, resp)) return;
        continue;
      }
      if (!SendAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
        return;
      const std::string chunk =
          "10000\r\n" + std::string(0x10000, '\0') + "\r\n";
      while (!stop_ && SendAll(fd, chunk)) streamed_ += 0x10000;
      return;
    }
  }
  static bool SendAll(int fd, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  std::string manifest_key_;
  std::string manifest_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> streamed_{0};
};

TEST(S3MisbehavingServerTest, AnEndlessBodyIsCutOffPastItsDeclaredSize) {
  // The manifest declares a 5-byte blob; the server streams it for ever.
  const std::string blob_digest = "sha256:" + digest::Sha256::HexOf("hello");
  cas::Manifest m;
  m.entries.push_back(
      {"endless", cas::ManifestEntry::Kind::kBlob, blob_digest, 5});
  std::string manifest = cas::SerializeManifest(m);
  std::string root = cas::DigestOf(manifest);
  EndlessServer server(root.substr(7), manifest);

  S3Options options;
  options.endpoint = server.Endpoint();
  options.force_path_style = true;
  options.timeout_ms = 5000;
  Result<StoreUrl> url = ParseStoreUrl("s3://endless");
  ASSERT_TRUE(url.ok());
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  {
    auto store = NewS3Store(*url, options, loop);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<cas::ClosureReport> r =
        cas::WalkClosure(**store, "t1", root, {}, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->verdict, cas::Verdict::kSizeMismatch) << r->detail;
    EXPECT_EQ(r->digest, blob_digest);
    Result<std::vector<cas::BadObject>> bad =
        cas::VerifyObjects(**store, "t1", {{blob_digest, 5}}, nullptr);
    ASSERT_TRUE(bad.ok()) << bad.status().ToString();
    ASSERT_EQ(bad->size(), 1u);
    EXPECT_EQ((*bad)[0].why, cas::Verdict::kSizeMismatch);
  }
  ev_loop_destroy(loop);
  // What the server got out before the client hung up: socket buffers, not
  // the gigabytes an uncut read would take.
  EXPECT_LT(server.streamed(), 64u * kMiB);
}

}  // namespace
}  // namespace awc::store::s3test

#endif  // AWC_WITH_S3
