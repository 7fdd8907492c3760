// awcctl serve: the read-only web console (awcctl(1), "serve";
// docs/console.md, "Console").
#include "cli/invocation.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "console/console_server.h"
#include "http/listen_address.h"

namespace awc::cli {
namespace {

constexpr const char* kDefaultListen = "127.0.0.1:8080";

int RunServe(Invocation& inv) {
  std::string text =
      inv.args().Has("listen") ? inv.args().Get("listen") : kDefaultListen;
  Result<http::ListenAddress> listen = http::ParseListenAddress(text);
  if (!listen.ok()) {
    return inv.Usage("--listen: " + listen.status().message());
  }
  Result<db::PgConn*> conn = inv.Connect({});
  if (!conn.ok()) return inv.Fail(conn.status());
  Result<const config::Settings*> settings = inv.Settings();
  if (!settings.ok()) return inv.Fail(settings.status());
  console::ServeOptions o;
  o.listen = *listen;
  o.target = inv.target();
  o.conninfo = (*settings)->database_url;
  o.pool_mode = (*settings)->DatabasePoolMode();
  o.conn = inv.TakeConnection();
  o.note = [&inv](const std::string& line) { inv.Note(line); };
  Status served = console::Serve(std::move(o));
  if (!served.ok()) return inv.Fail(served);
  return kExitOk;
}

}  // namespace

void AddServeCommands(std::vector<Command>* out) {
  Command c{"serve",
            "[--listen ADDR]",
            "serve a read-only web console of the queue, fleet and catalog",
            "Pages: the overview (queue by kind, dead letters, workers,\n"
            "scheduler, snapshots, workspaces, GC), jobs and one job, dead\n"
            "letters, snapshots and one snapshot, GC epochs, the audit\n"
            "trail, and /api/overview as JSON. Nothing it serves changes\n"
            "data: only GET and HEAD are answered, on a read-only session.\n"
            "It has no authentication: it listens on 127.0.0.1:8080 unless\n"
            "--listen says otherwise, and warns when that is not a loopback\n"
            "address. SIGINT or SIGTERM stops it.\n",
            {{"listen", "ADDR",
              "host:port, [v6]:port or :port (every interface); default "
              "127.0.0.1:8080"}}};
  c.run = RunServe;
  out->push_back(c);
}

}  // namespace awc::cli
