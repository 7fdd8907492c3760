// The metrics listener's request path: arbitrary bytes sent to a real
// HttpServer on loopback (libmicrohttpd in the same single-threaded loop the
// master uses). Never crashes, and the listener keeps answering.
#include <arpa/inet.h>
#include <ev.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "fuzz/fuzz_util.h"
#include "http/http_server.h"

namespace {

using awc::fuzz::Require;

struct Server {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  std::unique_ptr<awc::http::HttpServer> http;

  Server() {
    auto started = awc::http::HttpServer::Start(
        loop, "127.0.0.1", 0, [](const std::string& path) {
          awc::http::HttpResponse r;
          if (path == "/healthz") {
            r.body = "ok\n";
          } else if (path == "/metrics") {
            r.body = "awc_up 1\n";
          } else {
            r.status = 404;
            r.body = "not found\n";
          }
          return r;
        });
    Require(started.ok(), "the listener starts");
    http = std::move(*started);
  }
};

Server& TheServer() {
  static Server* server = new Server();
  return *server;
}

// Sends `request` on a fresh connection, closes the sending side, and runs
// the server's loop until the reply ends or `patience` seconds pass.
// Returns what came back.
std::string Exchange(Server& server, std::string_view request,
                     double patience) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  Require(fd >= 0, "a client socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.http->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  Require(rc == 0 || errno == EINPROGRESS, "connect to the listener");
  size_t sent = 0;
  bool closed_send = false;
  std::string reply;
  ev_now_update(server.loop);
  double deadline = ev_now(server.loop) + patience;
  while (ev_now(server.loop) < deadline) {
    ev_run(server.loop, EVRUN_NOWAIT);
    if (sent < request.size()) {
      ssize_t n =
          send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<size_t>(n);
    } else if (!closed_send) {
      shutdown(fd, SHUT_WR);
      closed_send = true;
    }
    ev_now_update(server.loop);
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1) > 0) {
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN)) break;
      if (n > 0) reply.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  ev_run(server.loop, EVRUN_NOWAIT);
  return reply;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static unsigned inputs = 0;
  Server& server = TheServer();
  (void)Exchange(server, awc::fuzz::AsText(data, size), 0.5);
  // Every so often a well-formed probe must still be answered.
  if (++inputs % 64 == 0) {
    std::string probe =
        Exchange(server, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 20);
    Require(probe.starts_with("HTTP/1.1 200"), "the listener still answers");
  }
  return 0;
}
