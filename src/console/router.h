// Router: the console's HTTP requests → pages (docs/console.md,
// "Console"; awcctl(1), "serve").
//
// Contract:
//  - Pages: / (overview), /jobs, /jobs/ID, /dead, /snapshots,
//    /snapshots/ID, /gc, /audit, and /api/overview (JSON). Anything else
//    is a 404 page; /favicon.ico is an empty 204.
//  - Query arguments are checked before the database is asked: a bad one
//    is a 400 page naming it. Text filters must be UTF-8 without control
//    characters, at most 200 bytes; ids positive integers; states and dead
//    reasons from their closed sets; refresh 0 or 5..3600 seconds.
//  - A read that fails is a 503 page that names the error and reloads
//    itself every 5 seconds; the next request asks the database again.
//  - With `local_hosts_only` (the listener is on a loopback address), a
//    request whose Host header names anything but localhost, a 127/8
//    address or [::1] gets a 403 page: a web page elsewhere cannot use DNS
//    rebinding to read the console through the operator's browser.
//  - Every response carries SecurityHeaders() (the HTTP server adds them,
//    405 included).
#ifndef AWC_CONSOLE_ROUTER_H_
#define AWC_CONSOLE_ROUTER_H_

#include <string>

#include "console/read_model.h"
#include "http/http_server.h"

namespace awc::console {

// Seconds an error page waits before it reloads itself.
inline constexpr int kRetrySecs = 5;

class Router {
 public:
  // `target` is the database line pages show (never a password).
  Router(ReadModel& model, std::string target, bool local_hosts_only);

  http::HttpResponse Handle(const http::HttpRequest& request);

  // Content-Security-Policy (no script, no external resource, inline
  // styles only), nosniff, no framing, no referrer, no caching.
  static http::HttpHeaders SecurityHeaders();

 private:
  ReadModel& model_;
  std::string target_;
  bool local_hosts_only_;
};

// Whether a Host header value names this machine's loopback interface
// ("localhost", "127.0.0.1:8080", "[::1]:8080"); an empty one does.
bool IsLoopbackHost(const std::string& host);

}  // namespace awc::console

#endif  // AWC_CONSOLE_ROUTER_H_
