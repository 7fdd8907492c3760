// HttpServer: a small HTTP listener (libmicrohttpd) driven by a libev loop:
// the parent's /metrics, /healthz and /readyz, and awcctl serve's console.
//
// Contract:
//  - Single-threaded: MHD runs in external-select mode on its epoll fd, which
//    an ev_io watcher on the given loop services; no thread is started, so
//    the parent stays safe to fork().
//  - Only GET and HEAD; other methods get 405 with "Allow: GET, HEAD".
//    A HEAD answer has the GET answer's headers and no body.
//  - The path is the request target's, %XX-decoded in full: a path with a
//    control byte in it (a %00 among them) gets 400 and reaches no handler.
//  - Responses come from the Route (path only: unknown paths are the
//    route's 404) or the Handler (the whole request); bodies pass through
//    Scrub(). An exception from either is a 500.
//  - Every response, 405 and 500 included, carries the server's common
//    headers, then the response's own.
//  - At most HttpServerOptions::connection_limit connections at once; more
//    wait in the listen queue and are accepted as slots free up. A
//    connection is closed once it has been idle for idle_timeout_secs, and
//    in any case connection_deadline_secs after it was accepted, so clients
//    that never finish a request (or read a response very slowly) cannot
//    hold the slots.
//  - Stop() closes the listening socket; the destructor calls it.
#ifndef AWC_HTTP_HTTP_SERVER_H_
#define AWC_HTTP_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "http/query_string.h"

struct ev_loop;

namespace awc::http {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  HttpResponse() = default;
  HttpResponse(int status_code, std::string type, std::string text,
               HttpHeaders more = {})
      : status(status_code),
        content_type(std::move(type)),
        body(std::move(text)),
        headers(std::move(more)) {}

  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  HttpHeaders headers;  // more headers, after the server's common ones
};

// One request, as a Handler sees it.
struct HttpRequest {
  std::string method;  // GET or HEAD
  std::string path;    // percent-decoded, without the query
  QueryArgs query;     // query_string.h
  std::string host;    // the Host header, "" when there is none

  // The last value of query argument `name`, or nullptr.
  const std::string* Arg(std::string_view name) const;
};

struct HttpServerOptions {
  int connection_limit = 64;
  int idle_timeout_secs = 5;
  int connection_deadline_secs = 10;
};

class HttpServer {
 public:
  // Returns the response for a GET of `path` (no query string), or status
  // 404 for paths it does not serve.
  using Route = std::function<HttpResponse(const std::string& path)>;
  // Returns the response for any GET or HEAD request.
  using Handler = std::function<HttpResponse(const HttpRequest& request)>;

  // Binds `host:port` (host "" = all interfaces; port 0 = any free port)
  // and starts serving on `loop`.
  static Result<std::unique_ptr<HttpServer>> Start(
      struct ev_loop* loop, const std::string& host, int port, Route route,
      const HttpServerOptions& options = HttpServerOptions());
  // The same with a Handler, and `common` headers on every response.
  static Result<std::unique_ptr<HttpServer>> Serve(
      struct ev_loop* loop, const std::string& host, int port, Handler handler,
      HttpHeaders common = {},
      const HttpServerOptions& options = HttpServerOptions());
  ~HttpServer();

  // The bound port (useful when 0 was asked for).
  int port() const;
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  friend int OpenConnectionsForTest(const HttpServer& server);
  std::unique_ptr<Impl> impl_;
};

}  // namespace awc::http

#endif  // AWC_HTTP_HTTP_SERVER_H_
