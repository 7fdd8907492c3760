#include "http/http_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ev.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/redact.h"
#include "http/http_server_testing.h"

namespace awc::http {
namespace {

constexpr double kDeadlineSecs = 20;

struct Reply {
  int status = 0;
  std::string headers;  // the head, status line included
  std::string body;
};

Reply Parse(const std::string& raw) {
  Reply r;
  size_t end = raw.find("\r\n\r\n");
  r.headers = raw.substr(0, end);
  if (end != std::string::npos) r.body = raw.substr(end + 4);
  size_t sp = raw.find(' ');
  if (sp != std::string::npos) r.status = atoi(raw.c_str() + sp + 1);
  return r;
}

// Child side: sends `request` to 127.0.0.1:`port`, copies the whole
// response to `out`, and exits.
[[noreturn]] void RunClient(int port, const std::string& request, int out) {
  alarm(static_cast<unsigned int>(kDeadlineSecs));
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 ||
      connect(s, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr)) {
    _exit(2);
  }
  if (write(s, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    _exit(3);
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(s, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) _exit(4);
    if (write(out, buf, static_cast<size_t>(n)) != n) _exit(5);
  }
  _exit(0);
}

struct FetchState {
  std::string data;
  bool done = false;
  bool timed_out = false;
};

void OnPipe(struct ev_loop*, ev_io* w, int) {
  auto* st = static_cast<FetchState*>(w->data);
  char buf[4096];
  ssize_t n = read(w->fd, buf, sizeof buf);
  if (n > 0) {
    st->data.append(buf, static_cast<size_t>(n));
  } else if (n == 0 || errno != EAGAIN) {
    st->done = true;
  }
}

void OnDeadline(struct ev_loop*, ev_timer* w, int) {
  static_cast<FetchState*>(w->data)->timed_out = true;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loop_ = ev_loop_new(EVFLAG_AUTO);
    ASSERT_NE(loop_, nullptr);
    StartOn("127.0.0.1");
  }

  void StartOn(const std::string& host) {
    server_.reset();
    auto server =
        HttpServer::Start(loop_, host, 0, [this](const std::string& path) {
          paths_.push_back(path);
          HttpResponse r;
          if (path == "/metrics") {
            r.content_type = "text/plain; version=0.0.4; charset=utf-8";
            r.body = "awc_up 1\n";
          } else if (path == "/leak") {
            r.body = "token=s3cr3t-value-42 end\n";
          } else {
            r.status = 404;
            r.body = "not found\n";
          }
          return r;
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  void TearDown() override {
    server_.reset();
    ClearSecrets();
    if (loop_ != nullptr) ev_loop_destroy(loop_);
  }

  // Runs the loop while a forked child fetches `request`; returns what the
  // child received.
  Reply Fetch(const std::string& request) {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      RunClient(server_->port(), request, p[1]);
    }
    close(p[1]);
    FetchState st;
    ev_io pipe_w;
    ev_io_init(&pipe_w, OnPipe, p[0], EV_READ);
    pipe_w.data = &st;
    ev_io_start(loop_, &pipe_w);
    ev_timer deadline;
    ev_now_update(loop_);
    ev_timer_init(&deadline, OnDeadline, kDeadlineSecs, 0.0);
    deadline.data = &st;
    ev_timer_start(loop_, &deadline);
    while (!st.done && !st.timed_out) ev_run(loop_, EVRUN_ONCE);
    ev_io_stop(loop_, &pipe_w);
    ev_timer_stop(loop_, &deadline);
    close(p[0]);
    if (st.timed_out) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_FALSE(st.timed_out) << "no response within the deadline";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "client status " << status;
    return Parse(st.data);
  }

  struct ev_loop* loop_ = nullptr;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::string> paths_;
};

TEST_F(HttpServerTest, ReportsTheBoundPort) {
  EXPECT_GT(server_->port(), 0);
  EXPECT_LT(server_->port(), 65536);
}

TEST_F(HttpServerTest, ServesRouteBodyAndContentType) {
  Reply r = Fetch("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.headers;
  EXPECT_EQ(r.body, "awc_up 1\n");
  EXPECT_NE(
      r.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8"),
      std::string::npos)
      << r.headers;
  EXPECT_EQ(paths_, std::vector<std::string>{"/metrics"});
}

TEST_F(HttpServerTest, UnknownPathIs404) {
  Reply r = Fetch("GET /nope HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "not found\n");
}

TEST_F(HttpServerTest, PostIs405WithAllow) {
  Reply r = Fetch("POST /metrics HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(r.headers.find("Allow: GET, HEAD"), std::string::npos) << r.headers;
  EXPECT_TRUE(paths_.empty());
}

TEST_F(HttpServerTest, HeadHasNoBody) {
  Reply r = Fetch("HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.headers;
  EXPECT_EQ(r.body, "");
}

TEST_F(HttpServerTest, StripsQueryString) {
  Reply r = Fetch("GET /metrics?name=x&y=1 HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(paths_, std::vector<std::string>{"/metrics"});
}

TEST_F(HttpServerTest, ScrubsRegisteredSecrets) {
  RegisterSecret("s3cr3t-value-42");
  Reply r = Fetch("GET /leak HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "token=" + std::string(kRedacted) + " end\n");
}

TEST_F(HttpServerTest, ServesSeveralRequestsInTurn) {
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Fetch("GET /metrics HTTP/1.0\r\n\r\n").status, 200);
  }
}

TEST_F(HttpServerTest, SecondListenerOnSamePortFails) {
  int port = server_->port();
  auto again =
      HttpServer::Start(loop_, "127.0.0.1", port,
                        [](const std::string&) { return HttpResponse{}; });
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(),
            "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                strerror(EADDRINUSE));
}

TEST_F(HttpServerTest, StopReleasesThePort) {
  int port = server_->port();
  server_->Stop();
  server_->Stop();  // idempotent
  auto again =
      HttpServer::Start(loop_, "127.0.0.1", port,
                        [](const std::string&) { return HttpResponse{}; });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->port(), port);
}

TEST_F(HttpServerTest, AllInterfacesAcceptsIpv4) {
  StartOn("");
  EXPECT_EQ(Fetch("GET /metrics HTTP/1.0\r\n\r\n").status, 200);
}

int OpenFds() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n;
}

TEST_F(HttpServerTest, StopClosesEveryDescriptor) {
  server_.reset();
  int before = OpenFds();
  StartOn("127.0.0.1");
  EXPECT_EQ(Fetch("GET /metrics HTTP/1.0\r\n\r\n").status, 200);
  server_->Stop();
  EXPECT_EQ(OpenFds(), before);
}

// A server with a Handler: sees the whole request and adds common headers.
class HttpHandlerTest : public HttpServerTest {
 protected:
  void SetUp() override {
    loop_ = ev_loop_new(EVFLAG_AUTO);
    ASSERT_NE(loop_, nullptr);
    auto server = HttpServer::Serve(loop_, "127.0.0.1", 0,
                                    [this](const HttpRequest& request) {
                                      requests_.push_back(request);
                                      if (request.path == "/throw")
                                        throw std::runtime_error("boom");
                                      HttpResponse r;
                                      r.body = "ok\n";
                                      r.headers = {{"X-Own", "1"}};
                                      return r;
                                    },
                                    {{"X-Common", "yes"}});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  std::vector<HttpRequest> requests_;
};

TEST_F(HttpHandlerTest, SeesMethodPathQueryAndHost) {
  Reply r = Fetch(
      "GET /jobs/%31?kind=a+b%2Bc&state=FAILED&kind=x%3Cy HTTP/1.1\r\n"
      "Host: localhost:8080\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.headers;
  ASSERT_EQ(requests_.size(), 1u);
  const HttpRequest& q = requests_[0];
  EXPECT_EQ(q.method, "GET");
  EXPECT_EQ(q.path, "/jobs/1");
  EXPECT_EQ(q.host, "localhost:8080");
  ASSERT_EQ(q.query.size(), 3u);
  EXPECT_EQ(q.query[0].second, "a b+c");
  ASSERT_NE(q.Arg("kind"), nullptr);
  EXPECT_EQ(*q.Arg("kind"), "x<y");  // the last one
  EXPECT_EQ(*q.Arg("state"), "FAILED");
  EXPECT_EQ(q.Arg("nope"), nullptr);
}

// The handler sees the whole path: a %00 does not end it, and a control
// byte anywhere in it is a bad request that reaches no handler.
TEST_F(HttpHandlerTest, APathWithAControlByteIsABadRequest) {
  for (const char* path :
       {"/jobs/2%00zzz", "/dead%00xyz", "/a%0Ab", "/%7F", "/x%1b[31m"}) {
    Reply r = Fetch(std::string("GET ") + path +
                    " HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(r.status, 400) << path << ": " << r.headers;
    EXPECT_NE(r.headers.find("X-Common: yes"), std::string::npos) << path;
  }
  EXPECT_TRUE(requests_.empty()) << requests_[0].path;
  Reply plus = Fetch(
      "GET /a+b%2Fc%20d HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(plus.status, 200);
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_EQ(requests_[0].path, "/a+b/c d");  // '+' is itself in a path
}

TEST_F(HttpHandlerTest, CommonHeadersComeFirstThenTheResponsesOwn) {
  Reply r = Fetch("GET / HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  size_t common = r.headers.find("X-Common: yes");
  size_t own = r.headers.find("X-Own: 1");
  ASSERT_NE(common, std::string::npos) << r.headers;
  ASSERT_NE(own, std::string::npos) << r.headers;
  EXPECT_LT(common, own);
  EXPECT_TRUE(requests_[0].host.empty());
}

TEST_F(HttpHandlerTest, RefusedMethodsAndErrorsCarryTheCommonHeaders) {
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    Reply r = Fetch(std::string(method) + " / HTTP/1.0\r\n\r\n");
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_NE(r.headers.find("X-Common: yes"), std::string::npos) << method;
  }
  EXPECT_TRUE(requests_.empty());
  Reply r = Fetch("GET /throw HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal error\n");
  EXPECT_NE(r.headers.find("X-Common: yes"), std::string::npos);
}

TEST_F(HttpHandlerTest, HeadGetsTheHandlersHeadersWithoutBody) {
  Reply r = Fetch("HEAD /x HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_NE(r.headers.find("X-Own: 1"), std::string::npos);
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_EQ(requests_[0].method, "HEAD");
}

// Opens `n` connections that each send the head of a request and never
// finish it, runs the loop until the server holds `expect` of them, then
// closes them all.
void HalfOpenBurst(struct ev_loop* loop, HttpServer& server, int n,
                   int expect) {
  std::vector<int> fds;
  std::vector<bool> sent(static_cast<size_t>(n), false);
  const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < n; ++i) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(s, 0);
    int rc = connect(s, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr);
    ASSERT_TRUE(rc == 0 || errno == EINPROGRESS) << strerror(errno);
    fds.push_back(s);
  }
  ev_tstamp give_up = ev_time() + kDeadlineSecs;
  while (OpenConnectionsForTest(server) < expect && ev_time() < give_up) {
    for (size_t i = 0; i < fds.size(); ++i) {
      if (sent[i]) continue;
      sent[i] = send(fds[i], head.data(), head.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(head.size());
    }
    ev_run(loop, EVRUN_NOWAIT);
    usleep(1000);
  }
  EXPECT_EQ(OpenConnectionsForTest(server), expect);
  // Holds them a moment, the server running, so that it has read what the
  // clients sent.
  for (int i = 0; i < 100; ++i) {
    ev_run(loop, EVRUN_NOWAIT);
    usleep(1000);
  }
  for (int s : fds) close(s);
}

TEST_F(HttpServerTest, ServesAgainWhenHalfOpenClientsAtTheLimitLeave) {
  // As many half-open requests as there are slots: the server reaches its
  // limit (and stops accepting), then every client goes away at once. It
  // must accept and serve again afterwards.
  const int limit = HttpServerOptions().connection_limit;
  HalfOpenBurst(loop_, *server_, limit, limit);
  Reply r = Fetch("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.headers;
  EXPECT_EQ(r.body, "awc_up 1\n");
}

TEST_F(HttpServerTest, ServesAgainAfterBurstsOfHalfOpenConnections) {
  // More half-open requests than slots, several times over.
  const int limit = HttpServerOptions().connection_limit;
  for (int round = 0; round < 3; ++round) {
    HalfOpenBurst(loop_, *server_, 200, limit);
    EXPECT_EQ(Fetch("GET /metrics HTTP/1.0\r\n\r\n").status, 200);
  }
}

// Child side: connects and sends `head` one byte at a time, a byte every
// 100 ms, for ever (until the server closes the connection).
[[noreturn]] void Trickle(int port, const std::string& head) {
  alarm(static_cast<unsigned int>(3 * kDeadlineSecs));
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 ||
      connect(s, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr)) {
    _exit(2);
  }
  for (size_t i = 0;; i = (i + 1) % head.size()) {
    if (send(s, &head[i], 1, MSG_NOSIGNAL) != 1) _exit(0);
    usleep(100 * 1000);
  }
}

TEST_F(HttpServerTest, SlowClientsCannotHoldEverySlot) {
  // Clients that keep sending, slower than a request needs but faster
  // than the idle timeout, fill every slot; the per-connection deadline
  // frees them, so a normal request is served eventually.
  HttpServerOptions options;
  options.connection_limit = 3;
  options.connection_deadline_secs = 1;
  server_.reset();
  auto server = HttpServer::Start(
      loop_, "127.0.0.1", 0,
      [](const std::string&) {
        return HttpResponse{200, "text/plain", "ok"};
      },
      options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  server_ = std::move(server).value();
  std::vector<pid_t> tricklers;
  for (int i = 0; i < options.connection_limit; ++i) {
    pid_t pid = fork();
    if (pid == 0) Trickle(server_->port(), "GET /metrics HTTP/1.1\r\nX: ");
    tricklers.push_back(pid);
  }
  ev_tstamp give_up = ev_time() + kDeadlineSecs;
  while (OpenConnectionsForTest(*server_) < options.connection_limit &&
         ev_time() < give_up) {
    ev_run(loop_, EVRUN_NOWAIT);
    usleep(1000);
  }
  EXPECT_EQ(OpenConnectionsForTest(*server_), options.connection_limit);
  Reply r = Fetch("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.headers;
  for (pid_t pid : tricklers) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

TEST(HttpServerStartTest, RejectsHostNames) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto server =
      HttpServer::Start(loop, "metrics.example.com", 0,
                        [](const std::string&) { return HttpResponse{}; });
  ASSERT_FALSE(server.ok());
  EXPECT_TRUE(server.status().IsInvalidArgument());
  EXPECT_EQ(server.status().message(),
            "cannot listen on metrics.example.com:0: \"metrics.example.com\" "
            "is not a numeric IPv4 or IPv6 address");
  ev_loop_destroy(loop);
}

TEST(HttpServerStartTest, BindsAllInterfacesAndLocalhost) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  auto route = [](const std::string&) { return HttpResponse{}; };
  auto any = HttpServer::Start(loop, "", 0, route);
  ASSERT_TRUE(any.ok()) << any.status().ToString();
  EXPECT_GT((*any)->port(), 0);
  auto local = HttpServer::Start(loop, "localhost", 0, route);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  any->reset();
  local->reset();
  ev_loop_destroy(loop);
}

}  // namespace
}  // namespace awc::http
