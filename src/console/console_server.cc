#include "console/console_server.h"

#include <ev.h>
#include <signal.h>

#include "console/pg_read_model.h"
#include "console/router.h"
#include "http/http_server.h"

namespace awc::console {
namespace {

void OnStopSignal(struct ev_loop* loop, ev_signal*, int) {
  ev_break(loop, EVBREAK_ALL);
}

}  // namespace

bool IsLoopbackListen(const std::string& host) {
  if (host.empty()) return false;
  if (host == "::1" || host == "[::1]") return true;
  return IsLoopbackHost(host);
}

Status Serve(ServeOptions o) {
  auto note = o.note ? o.note : [](const std::string&) {};
  bool loopback = IsLoopbackListen(o.listen.host);
  PgReadModel model(std::make_unique<PgSession>(o.conninfo, o.pool_mode,
                                                std::move(o.conn), note));
  Router router(model, o.target, loopback);

  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  if (loop == nullptr) return Status::Internal("cannot create an event loop");
  // Stop watchers first: the loop owns nothing else yet.
  ev_signal sigint, sigterm;
  ev_signal_init(&sigint, OnStopSignal, SIGINT);
  ev_signal_init(&sigterm, OnStopSignal, SIGTERM);
  ev_signal_start(loop, &sigint);
  ev_signal_start(loop, &sigterm);
  signal(SIGPIPE, SIG_IGN);

  Status status;
  {
    auto server = http::HttpServer::Serve(
        loop, o.listen.host, o.listen.port,
        [&router](const http::HttpRequest& r) { return router.Handle(r); },
        Router::SecurityHeaders());
    if (!server.ok()) {
      status = server.status();
    } else {
      http::ListenAddress bound = o.listen;
      bound.port = (*server)->port();
      std::string where =
          bound.host.empty()
              ? "port " + std::to_string(bound.port) + " of every interface"
              : "http://" + bound.ToString() + "/";
      if (!loopback) {
        note("warning: listening on " +
             (bound.host.empty() ? where : bound.ToString()) +
             ", not a loopback address: the console has no authentication, "
             "anyone who can reach it can read jobs, payloads and errors");
      }
      note("console on " + where + " (read-only; Ctrl-C stops it)");
      ev_run(loop, 0);
      note("console stopped");
    }
  }
  ev_signal_stop(loop, &sigint);
  ev_signal_stop(loop, &sigterm);
  ev_loop_destroy(loop);
  return status;
}

}  // namespace awc::console
