// Only the tests of the s3:// store use it; they, and libcurl, are absent
// from builds without AWC_WITH_S3.
#if AWC_WITH_S3

#include "tests/support/s3_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/support/harness.h"
#include "tests/support/server_process.h"

namespace awc::testing {
namespace {

constexpr double kStartTimeoutS = 30;
constexpr size_t kLogTail = 8000;

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

std::string S3Server::ScriptPath() {
  const char* env = getenv("AWC_S3RVER");
  if (env != nullptr && *env != '\0') return env;
#ifdef AWC_S3RVER_PATH
  return AWC_S3RVER_PATH;
#else
  // This file is <root>/tests/support/s3_server.cc.
  std::filesystem::path root =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  return (root / "build-deps/node_modules/s3rver/bin/s3rver.js").string();
#endif
}

S3Server::S3Server() {
  dir_ = MakeServerDir("awc-s3rver");
  if (dir_.empty()) return;
  log_path_ = dir_ + ".log";
  port_ = FreePort();
  if (access(ScriptPath().c_str(), R_OK) != 0) {
    ADD_FAILURE() << "s3rver is not installed at " << ScriptPath()
                  << " (run `make deps`, or set AWC_S3RVER)";
    return;
  }
  Launch();
}

S3Server::~S3Server() {
  Kill();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  if (!log_path_.empty()) unlink(log_path_.c_str());
}

std::string S3Server::Endpoint() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string S3Server::VirtualHostEndpoint() const {
  return "http://s3.localhost:" + std::to_string(port_);
}

bool S3Server::Launch() {
  // s3rver 3.7.1 makes ListObjectsV2 continuation tokens with DES, which
  // the OpenSSL 3 of Node >= 17 only offers through its legacy provider.
  std::vector<std::string> args = {"node",
                                   "--openssl-legacy-provider",
                                   ScriptPath(),
                                   "--directory",
                                   dir_,
                                   "--address",
                                   "127.0.0.1",
                                   "--port",
                                   std::to_string(port_),
                                   "--service-endpoint",
                                   "localhost"};
  std::string why;
  pid_ = StartServer(std::move(args), log_path_, port_, kStartTimeoutS, &why);
  if (pid_ < 0) {
    ADD_FAILURE() << "s3rver did not come up on port " << port_ << " (" << why
                  << "):\n"
                  << Log();
    return false;
  }
  return true;
}

void S3Server::Kill() {
  KillServer(pid_);
  pid_ = -1;
}

bool S3Server::Restart() {
  Kill();
  return Launch();
}

void S3Server::Pause() {
  if (pid_ > 0) kill(-pid_, SIGSTOP);
}

void S3Server::Resume() {
  if (pid_ > 0) kill(-pid_, SIGCONT);
}

bool S3Server::CreateBucket(const std::string& bucket) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURL* easy = curl_easy_init();
  std::string url = Endpoint() + "/" + bucket;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Discard);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT, 30L);
  CURLcode rc = curl_easy_perform(easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(easy);
  if (rc != CURLE_OK || status != 200) {
    ADD_FAILURE() << "creating bucket " << bucket << ": "
                  << curl_easy_strerror(rc) << ", HTTP " << status << "\n"
                  << Log();
    return false;
  }
  return true;
}

std::string S3Server::Log() const { return FileTail(log_path_, kLogTail); }

}  // namespace awc::testing

#endif  // AWC_WITH_S3
