#include "http/http_server.h"

#include <arpa/inet.h>
#include <ev.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "common/redact.h"
#include "http/http_server_testing.h"

namespace awc::http {
namespace {

constexpr int kListenBacklog = 64;
constexpr const char* kAllowedMethods = "GET, HEAD";

// "127.0.0.1:9100", "[::1]:9100", "*:9100" (all interfaces).
std::string DescribeAddress(const std::string& host, int port) {
  std::string where = host.empty() ? "*" : host;
  if (host.find(':') != std::string::npos && host.front() != '[') {
    where = "[" + host + "]";
  }
  return where + ":" + std::to_string(port);
}

// The socket address for `host`, which must be empty (all interfaces),
// "localhost" or a numeric IPv4 or IPv6 address.
bool ResolveNumeric(const std::string& host, int port,
                    struct sockaddr_storage* ss, socklen_t* len) {
  memset(ss, 0, sizeof *ss);
  std::string h = host == "localhost" ? "127.0.0.1" : host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
  }
  auto* v4 = reinterpret_cast<struct sockaddr_in*>(ss);
  auto* v6 = reinterpret_cast<struct sockaddr_in6*>(ss);
  if (h.empty()) {
    v6->sin6_family = AF_INET6;
    v6->sin6_addr = in6addr_any;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    *len = sizeof *v6;
    return true;
  }
  if (inet_pton(AF_INET, h.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    *len = sizeof *v4;
    return true;
  }
  if (inet_pton(AF_INET6, h.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    *len = sizeof *v6;
    return true;
  }
  return false;
}

// Binds and listens; returns the socket or -1 with errno set. An IPv6
// wildcard also accepts IPv4; where IPv6 is unavailable it falls back to
// the IPv4 wildcard.
int Listen(struct sockaddr_storage* ss, socklen_t len, bool any) {
  int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 && any && errno == EAFNOSUPPORT) {
    in_port_t port = reinterpret_cast<struct sockaddr_in6*>(ss)->sin6_port;
    memset(ss, 0, sizeof *ss);
    auto* v4 = reinterpret_cast<struct sockaddr_in*>(ss);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_ANY);
    v4->sin_port = port;
    len = sizeof *v4;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  }
  if (fd < 0) return -1;
  int one = 1;
  int zero = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ss->ss_family == AF_INET6 && any) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (bind(fd, reinterpret_cast<struct sockaddr*>(ss), len) != 0 ||
      listen(fd, kListenBacklog) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int BoundPort(int fd) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) != 0) {
    return 0;
  }
  if (ss.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<struct sockaddr_in6*>(&ss)->sin6_port);
  }
  return ntohs(reinterpret_cast<struct sockaddr_in*>(&ss)->sin_port);
}

}  // namespace

const std::string* HttpRequest::Arg(std::string_view name) const {
  const std::string* found = nullptr;
  for (const auto& [k, v] : query) {
    if (k == name) found = &v;
  }
  return found;
}

struct HttpServer::Impl {
  struct ev_loop* loop = nullptr;
  Handler handler;
  HttpHeaders common;
  HttpServerOptions options;
  struct MHD_Daemon* daemon = nullptr;
  int port = 0;
  ev_io io;        // MHD's epoll fd
  ev_timer timer;  // the next of MHD's timeouts and the connection deadlines

  // Open connections: their socket and when they must be gone.
  struct Open {
    int fd = -1;
    ev_tstamp deadline = 0;
    bool cut = false;  // shut down; MHD closes it on its next run
  };
  std::unordered_map<struct MHD_Connection*, Open> open;

  int Connections() const {
    const union MHD_DaemonInfo* info =
        MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == nullptr ? 0 : static_cast<int>(info->num_connections);
  }

  // Lets MHD do all it can now, ends overdue connections, then arms the
  // timer for what comes next.
  void Service() {
    if (daemon == nullptr) return;
    int before = Connections();
    MHD_run(daemon);
    // At its connection limit MHD takes the listening socket out of its
    // epoll set; it puts it back at the start of a run, once below the
    // limit. When this run closed connections there may be nothing left
    // to wake MHD (no connection, no timeout): run it again right away,
    // or the listener would stay deaf for good.
    bool freed = Connections() < before;
    ev_tstamp now = ev_now(loop);
    double wait = -1;
    for (auto& [conn, o] : open) {
      if (o.cut) continue;
      if (o.deadline <= now) {
        // Too slow: the shutdown wakes MHD, which closes the connection.
        shutdown(o.fd, SHUT_RDWR);
        o.cut = true;
        continue;
      }
      if (wait < 0 || o.deadline - now < wait) wait = o.deadline - now;
    }
    MHD_UNSIGNED_LONG_LONG ms = 0;
    if (MHD_get_timeout(daemon, &ms) == MHD_YES) {
      double mhd = static_cast<double>(ms) / 1000.0;
      if (wait < 0 || mhd < wait) wait = mhd;
    }
    if (freed) wait = 0;
    ev_timer_stop(loop, &timer);
    if (wait >= 0) {
      ev_timer_set(&timer, wait, 0.0);
      ev_timer_start(loop, &timer);
    }
  }
};

namespace {

void OnEpollReadable(struct ev_loop*, ev_io* w, int) {
  static_cast<HttpServer::Impl*>(w->data)->Service();
}

void OnTimeout(struct ev_loop*, ev_timer* w, int) {
  static_cast<HttpServer::Impl*>(w->data)->Service();
}

// MHD's connection notifications: keeps the table of open connections.
void OnConnection(void* cls, struct MHD_Connection* conn, void**,
                  enum MHD_ConnectionNotificationCode code) {
  auto* impl = static_cast<HttpServer::Impl*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    impl->open.erase(conn);
    return;
  }
  const union MHD_ConnectionInfo* info =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return;
  HttpServer::Impl::Open o;
  o.fd = info->connect_fd;
  o.deadline = ev_now(impl->loop) +
               static_cast<double>(impl->options.connection_deadline_secs);
  impl->open[conn] = o;
}

MHD_Result Reply(struct MHD_Connection* conn, const HttpHeaders& common,
                 const HttpResponse& r) {
  std::string body = Scrub(r.body);
  struct MHD_Response* resp = MHD_create_response_from_buffer(
      body.size(), body.data(), MHD_RESPMEM_MUST_COPY);
  if (resp == nullptr) return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                          r.content_type.c_str());
  if (r.status == MHD_HTTP_METHOD_NOT_ALLOWED) {
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, kAllowedMethods);
  }
  for (const HttpHeaders* headers : {&common, &r.headers}) {
    for (const auto& [name, value] : *headers) {
      MHD_add_response_header(resp, name.c_str(), value.c_str());
    }
  }
  MHD_Result ret =
      MHD_queue_response(conn, static_cast<unsigned int>(r.status), resp);
  MHD_destroy_response(resp);
  return ret;
}

// MHD's first look at a request: keeps its raw target (MHD decodes the
// path and its own way of splitting the query treats '+' as a '+'), which
// the access handler gets as its *req_cls.
void* OnUri(void*, const char* uri, struct MHD_Connection*) {
  return new std::string(uri != nullptr ? uri : "");
}

void OnCompleted(void*, struct MHD_Connection*, void** req_cls,
                 enum MHD_RequestTerminationCode) {
  delete static_cast<std::string*>(*req_cls);
  *req_cls = nullptr;
}

// MHD's access handler. Answers on the first call, once the headers are
// in: nothing we serve needs a request body.
MHD_Result OnRequest(void* cls, struct MHD_Connection* conn, const char* url,
                     const char* method, const char*, const char*, size_t*,
                     void** req_cls) {
  auto* impl = static_cast<HttpServer::Impl*>(cls);
  HttpResponse response;
  if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
      strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
    response.status = MHD_HTTP_METHOD_NOT_ALLOWED;
    response.body = "method not allowed\n";
    return Reply(conn, impl->common, response);
  }
  HttpRequest request;
  request.method = method;
  const auto* target = static_cast<const std::string*>(*req_cls);
  // The path from the raw target: MHD's decoded `url` is a C string, which
  // ends at a %00 and would hand the handler a shorter path than was asked.
  if (target != nullptr && target->starts_with('/')) {
    request.path = DecodePath(target->substr(0, target->find('?')));
  } else {
    request.path = url != nullptr ? url : "/";
    size_t query = request.path.find('?');
    if (query != std::string::npos) request.path.erase(query);
  }
  for (char c : request.path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      response.status = MHD_HTTP_BAD_REQUEST;
      response.body = "bad request: a control character in the path\n";
      return Reply(conn, impl->common, response);
    }
  }
  if (target != nullptr) request.query = ParseQueryString(QueryOf(*target));
  const char* host =
      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  if (host != nullptr) request.host = host;
  try {
    response = impl->handler(request);
  } catch (...) {
    response =
        HttpResponse{500, "text/plain; charset=utf-8", "internal error\n", {}};
  }
  return Reply(conn, impl->common, response);
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::Start(
    struct ev_loop* loop, const std::string& host, int port, Route route,
    const HttpServerOptions& options) {
  return Serve(
      loop, host, port,
      [route = std::move(route)](const HttpRequest& request) {
        return route(request.path);
      },
      {}, options);
}

Result<std::unique_ptr<HttpServer>> HttpServer::Serve(
    struct ev_loop* loop, const std::string& host, int port, Handler handler,
    HttpHeaders common, const HttpServerOptions& options) {
  const std::string where = "cannot listen on " + DescribeAddress(host, port);
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument(where + ": port out of range");
  }
  struct sockaddr_storage ss;
  socklen_t len = 0;
  if (!ResolveNumeric(host, port, &ss, &len)) {
    return Status::InvalidArgument(where + ": \"" + host +
                                   "\" is not a numeric IPv4 or IPv6 address");
  }
  int fd = Listen(&ss, len, host.empty());
  if (fd < 0) return Status::IoError(where + ": " + strerror(errno));

  auto impl = std::make_unique<Impl>();
  impl->loop = loop;
  impl->handler = std::move(handler);
  impl->common = std::move(common);
  impl->options = options;
  impl->port = BoundPort(fd);
  unsigned int flags = MHD_USE_EPOLL;
  if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  // MHD owns `fd` from here: MHD_stop_daemon() closes it.
  impl->daemon = MHD_start_daemon(
      flags, 0, nullptr, nullptr, &OnRequest, impl.get(),
      MHD_OPTION_LISTEN_SOCKET, static_cast<MHD_socket>(fd),
      MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned int>(options.idle_timeout_secs),
      MHD_OPTION_CONNECTION_LIMIT,
      static_cast<unsigned int>(options.connection_limit),
      MHD_OPTION_NOTIFY_CONNECTION, &OnConnection, impl.get(),
      MHD_OPTION_URI_LOG_CALLBACK, &OnUri, nullptr, MHD_OPTION_NOTIFY_COMPLETED,
      &OnCompleted, nullptr, MHD_OPTION_END);
  if (impl->daemon == nullptr) {
    if (fcntl(fd, F_GETFD) != -1) close(fd);  // unless MHD already did
    return Status::Internal(where + ": libmicrohttpd did not start");
  }
  const union MHD_DaemonInfo* info =
      MHD_get_daemon_info(impl->daemon, MHD_DAEMON_INFO_EPOLL_FD);
  if (info == nullptr || info->epoll_fd < 0) {
    MHD_stop_daemon(impl->daemon);
    return Status::Internal(where + ": libmicrohttpd has no epoll descriptor");
  }
  ev_io_init(&impl->io, OnEpollReadable, info->epoll_fd, EV_READ);
  impl->io.data = impl.get();
  ev_init(&impl->timer, OnTimeout);
  impl->timer.data = impl.get();
  ev_io_start(loop, &impl->io);
  impl->Service();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port; }

int OpenConnectionsForTest(const HttpServer& server) {
  return server.impl_->daemon == nullptr ? 0 : server.impl_->Connections();
}

void HttpServer::Stop() {
  if (impl_->daemon == nullptr) return;
  ev_io_stop(impl_->loop, &impl_->io);
  ev_timer_stop(impl_->loop, &impl_->timer);
  MHD_stop_daemon(impl_->daemon);
  impl_->daemon = nullptr;
}

}  // namespace awc::http
