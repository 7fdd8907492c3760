// TcpProxy: a TCP forwarder on a free loopback port to another host and
// port, which a test can cut (every connection closed, new ones refused)
// and restore: a network failure between the daemon and PostgreSQL.
#ifndef AWC_TESTS_SUPPORT_TCP_PROXY_H_
#define AWC_TESTS_SUPPORT_TCP_PROXY_H_

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace awc::testing {

class TcpProxy {
 public:
  // Forwards 127.0.0.1:port() to `host`:`port` (resolved per connection).
  TcpProxy(std::string host, std::string port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  // Closes every forwarded connection; until Restore(), new connections
  // are closed as soon as they are accepted.
  void Cut();
  void Restore();

 private:
  void Run();

  std::string host_;
  std::string target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::atomic<bool> cut_{false};
  std::thread thread_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_TCP_PROXY_H_
