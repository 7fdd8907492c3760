#include "tests/support/console_fixture.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace awc::testing {

FleetRun RunFleet(TestDatabase& db, DaemonProcess& fleet, int completed) {
  FleetRun run;
  db.Exec("INSERT INTO awc.tenants (id) VALUES ('acme'), ('globex')");
  db.Exec("INSERT INTO awc.workspaces (tenant_id) VALUES ('acme')");
  db.Exec(
      "INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest, "
      "state) VALUES ('globex', NULL, 'sha256:' || repeat('e', 64), "
      "'READY')");
  run.snapshot = db.Int(
      "INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest) "
      "SELECT 'acme', id, 'sha256:' || repeat('f', 64) FROM awc.workspaces "
      "RETURNING id");
  EXPECT_TRUE(fleet.WaitForEvent("supervisor running")) << fleet.Stderr();
  for (int i = 0; i < completed; ++i) {
    run.completed.push_back(db.Enqueue("test_complete", "{}"));
  }
  run.failed = db.Enqueue("test_fail", "{}");
  run.hostile = db.Enqueue(kHostileKind,
                           R"({"note": "</pre><script>alert(2)</script>"})");
  run.gc = db.Enqueue("gc_sweep", R"({"tenant_id": "acme"})");
  run.validate =
      db.Enqueue("snapshot_validate",
                 "{\"snapshot_id\": " + std::to_string(run.snapshot) + "}");
  run.scheduled = db.Int(
      "INSERT INTO awc.jobs (kind, payload, run_at) VALUES "
      "('test_complete', '{}', now() + interval '1 hour') RETURNING id");
  run.cancelled = db.Int(
      "INSERT INTO awc.jobs (kind, payload, state, run_at) VALUES "
      "('test_complete', '{}', 'CANCELLED', now() + interval '1 hour') "
      "RETURNING id");
  // The least urgent, so that it is claimed after all of the above
  // (docs/queue.md, "Priorities").
  run.sleeping = db.Int(
      "INSERT INTO awc.jobs (kind, payload, priority) VALUES "
      "('test_sleep', '{\"ms\": 120000}', 9) RETURNING id");
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int(
               "SELECT count(*) FROM awc.jobs WHERE state IN ('PENDING', "
               "'RUNNING') AND id NOT IN ($1, $2)",
               {std::to_string(run.sleeping), std::to_string(run.scheduled)}) ==
               0 &&
           db.JobState(run.sleeping) == "RUNNING";
  })) << fleet.Stderr();
  // The busy worker's heartbeat names the sleeping job.
  EXPECT_TRUE(WaitUntil([&] {
    return db.Int("SELECT count(*) FROM awc.workers WHERE job_id = $1",
                  {std::to_string(run.sleeping)}) == 1;
  }));
  return run;
}

ConsoleProcess::ConsoleProcess(const std::string& url, std::string listen) {
  port_ = FreePort();
  if (listen.empty()) listen = "127.0.0.1:" + std::to_string(port_);
  DaemonProcess::Options o;
  o.binary = AwcctlPath();
  o.args = {"serve", "--listen", listen};
  o.env = {{"DATABASE_URL", url}};
  process_ = std::make_unique<DaemonProcess>(o);
}

ConsoleProcess::~ConsoleProcess() {
  if (process_->running()) {
    process_->Signal(SIGTERM);
    process_->WaitExit();
  }
}

bool ConsoleProcess::WaitListening() {
  return WaitUntil(
      [&] { return process_->running() && Get("/favicon.ico").status == 204; });
}

HttpReply ConsoleProcess::Get(const std::string& target) {
  return Send("GET " + target + " HTTP/1.0");
}

HttpReply ConsoleProcess::Send(const std::string& request_line,
                               const std::string& extra_headers) {
  return HttpExchange(
      port_, request_line + "\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                 "\r\n" + extra_headers + "\r\n");
}

}  // namespace awc::testing
