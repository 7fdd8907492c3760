#include "tests/support/tcp_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace awc::testing {
namespace {

int ConnectTo(const std::string& host, const std::string& port) {
  addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

}  // namespace

TcpProxy::TcpProxy(std::string host, std::string port)
    : host_(std::move(host)), target_port_(std::move(port)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 64) != 0 || pipe2(wake_, O_CLOEXEC) != 0) {
    perror("TcpProxy");
    abort();
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Run(); });
}

TcpProxy::~TcpProxy() {
  stop_ = true;
  (void)!write(wake_[1], "x", 1);
  thread_.join();
  close(listen_fd_);
  close(wake_[0]);
  close(wake_[1]);
}

void TcpProxy::Cut() {
  cut_ = true;
  (void)!write(wake_[1], "x", 1);
}

void TcpProxy::Restore() { cut_ = false; }

// One thread polls everything: the listener, the wake pipe and both sides
// of every forwarded connection.
void TcpProxy::Run() {
  std::vector<std::pair<int, int>> pairs;  // (client, server)
  auto drop = [&](size_t i) {
    close(pairs[i].first);
    close(pairs[i].second);
    pairs.erase(pairs.begin() + static_cast<ptrdiff_t>(i));
  };
  char buf[65536];
  while (!stop_) {
    if (cut_) {
      while (!pairs.empty()) drop(0);
    }
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    for (auto& [c, s] : pairs) {
      fds.push_back({c, POLLIN, 0});
      fds.push_back({s, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), 1000) < 0) continue;
    if (fds[1].revents & POLLIN) {
      (void)!read(wake_[0], buf, sizeof buf);
      continue;
    }
    if (fds[0].revents & POLLIN) {
      int c = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        int s = cut_ ? -1 : ConnectTo(host_, target_port_);
        if (s < 0) {
          close(c);
        } else {
          pairs.emplace_back(c, s);
        }
      }
      continue;
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
      pollfd& pc = fds[2 + 2 * i];
      pollfd& ps = fds[3 + 2 * i];
      bool dead = false;
      for (auto [from, to] :
           {std::pair{&pc, pairs[i].second}, std::pair{&ps, pairs[i].first}}) {
        if (from->revents == 0) continue;
        ssize_t n = read(from->fd, buf, sizeof buf);
        if (n <= 0 ||
            send(to, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) {
          dead = true;
        }
      }
      if (dead) {
        drop(i);
        break;  // indexes moved: poll again
      }
    }
  }
  while (!pairs.empty()) drop(0);
}

}  // namespace awc::testing
