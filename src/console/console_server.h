// The console's process: one libev loop, the HTTP listener (obs/
// http_server.h) and the router over a PostgreSQL read model, until SIGINT
// or SIGTERM (awcctl(1), "serve"; docs/console.md, "Console").
#ifndef AWC_CONSOLE_CONSOLE_SERVER_H_
#define AWC_CONSOLE_CONSOLE_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "db/pg.h"
#include "http/listen_address.h"

namespace awc::console {

struct ServeOptions {
  http::ListenAddress listen;
  std::string target;    // the database as pages name it (no password)
  std::string conninfo;  // to connect again after the database was away
  db::PoolMode pool_mode = db::PoolMode::kSession;  // AWC_DATABASE_POOL_MODE
  std::unique_ptr<db::PgConn> conn;  // the open session to start with
  // Lines for the operator (stderr): where it listens, the database
  // coming and going.
  std::function<void(const std::string& line)> note;
};

// Whether `host` (a listen address's host) is on the loopback interface:
// 127.0.0.0/8, ::1 or localhost; "" (all interfaces) is not.
bool IsLoopbackListen(const std::string& host);

// Listens, then serves until SIGINT or SIGTERM; returns OK after either,
// or the error that prevented listening.
Status Serve(ServeOptions options);

}  // namespace awc::console

#endif  // AWC_CONSOLE_CONSOLE_SERVER_H_
