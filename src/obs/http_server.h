// HttpServer: the parent's small HTTP listener (libmicrohttpd) for
// /metrics, /healthz and /readyz, driven by the parent's libev loop.
//
// Contract:
//  - Single-threaded: MHD runs in external-select mode on its epoll fd, which
//    an ev_io watcher on the given loop services; no thread is started, so
//    the parent stays safe to fork().
//  - Only GET and HEAD; other methods get 405. Unknown paths get 404.
//  - Responses come from the Route callback; bodies pass through Scrub().
//  - At most HttpServerOptions::connection_limit connections at once; more
//    wait in the listen queue and are accepted as slots free up. A
//    connection is closed once it has been idle for idle_timeout_secs, and
//    in any case connection_deadline_secs after it was accepted, so clients
//    that never finish a request (or read a response very slowly) cannot
//    hold the slots.
//  - Stop() closes the listening socket; the destructor calls it.
#ifndef AWC_OBS_HTTP_SERVER_H_
#define AWC_OBS_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"

struct ev_loop;

namespace awc::obs {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
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

  // Binds `host:port` (host "" = all interfaces; port 0 = any free port)
  // and starts serving on `loop`.
  static Result<std::unique_ptr<HttpServer>> Start(
      struct ev_loop* loop, const std::string& host, int port, Route route,
      const HttpServerOptions& options = HttpServerOptions());
  ~HttpServer();

  // The bound port (useful when 0 was asked for).
  int port() const;
  // Connections open now (for tests and diagnostics).
  int connections() const;
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_HTTP_SERVER_H_
