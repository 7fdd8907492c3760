// The tests' HTTP client (tests/support/harness.h): one exchange per
// connection to a server on loopback, read until the server closes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>

#include "tests/support/harness.h"

namespace awc::testing {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string HttpReply::Header(const std::string& name) const {
  std::string lower_head = head;
  std::string lower_name = name;
  for (std::string* s : {&lower_head, &lower_name}) {
    std::transform(s->begin(), s->end(), s->begin(),
                   [](unsigned char c) { return std::tolower(c); });
  }
  size_t at = lower_head.find("\r\n" + lower_name + ":");
  if (at == std::string::npos) return "";
  size_t start = at + 2 + name.size() + 1;
  size_t end = head.find("\r\n", start);
  std::string value = head.substr(start, end - start);
  size_t first = value.find_first_not_of(' ');
  return first == std::string::npos ? "" : value.substr(first);
}

HttpReply HttpExchange(int port, const std::string& request) {
  HttpReply reply;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      write(fd, request.data(), request.size()) < 0) {
    close(fd);
    return reply;
  }
  std::string resp;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    resp.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  size_t end = resp.find("\r\n\r\n");
  if (resp.size() < 12 || end == std::string::npos) return reply;
  reply.status = atoi(resp.c_str() + 9);
  reply.head = resp.substr(0, end);
  reply.body = resp.substr(end + 4);
  return reply;
}

std::pair<int, std::string> HttpGet(int port, const std::string& path) {
  HttpReply r = HttpExchange(
      port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  return {r.status, r.body};
}

std::string ScrapeMetrics(int port) {
  auto [status, body] = HttpGet(port, "/metrics");
  EXPECT_EQ(status, 200) << body;
  return body;
}

}  // namespace awc::testing
