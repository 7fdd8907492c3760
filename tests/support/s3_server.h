// S3Server: the npm package s3rver on a free loopback port, for the tests
// of the s3:// store.
//
// s3rver is installed by `make deps` under build-deps/node_modules; the
// script is found through $AWC_S3RVER, else the AWC_S3RVER_PATH compile
// definition, else build-deps/ of the source tree this file is in. The
// server runs under `node` from PATH in its own process group, with its
// data in a fresh temporary directory and its log in a temporary file
// (Log() for failure messages). s3rver accepts any SigV4 signature for its
// key id "S3RVER" (it checks SigV2 signatures only) and anonymous requests.
#ifndef AWC_TESTS_SUPPORT_S3_SERVER_H_
#define AWC_TESTS_SUPPORT_S3_SERVER_H_

#include <sys/types.h>

#include <string>

namespace awc::testing {

class S3Server {
 public:
  static constexpr const char* kAccessKeyId = "S3RVER";

  // Starts the server; check ok() (a failure to start is also reported
  // with ADD_FAILURE, with the log).
  S3Server();
  // Kills the process group and removes the data directory and the log.
  ~S3Server();
  S3Server(const S3Server&) = delete;
  S3Server& operator=(const S3Server&) = delete;

  bool ok() const { return pid_ > 0; }
  int port() const { return port_; }
  // "http://127.0.0.1:<port>", for path-style requests.
  std::string Endpoint() const;
  // "http://s3.localhost:<port>": s3rver runs with --service-endpoint
  // localhost, so <bucket>.s3.localhost addresses a bucket (libcurl
  // resolves *.localhost to the loopback address itself).
  std::string VirtualHostEndpoint() const;
  const std::string& data_dir() const { return dir_; }

  // Creates a bucket with an anonymous PUT; false (and ADD_FAILURE) when
  // the server refuses.
  bool CreateBucket(const std::string& bucket);

  // SIGKILLs the server's process group and reaps it.
  void Kill();
  // Starts the server again on the same port and data directory; waits
  // until it accepts connections.
  bool Restart();
  // SIGSTOP / SIGCONT: a server that accepts connections and never answers.
  void Pause();
  void Resume();

  // The server's output so far (the tail when it is long).
  std::string Log() const;

  // Where the s3rver script is looked for.
  static std::string ScriptPath();

 private:
  bool Launch();

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string log_path_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_S3_SERVER_H_
