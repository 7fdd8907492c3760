// The console's integration tests: a database that a real fleet of the
// test daemon has worked on, and `awcctl serve` as a process.
#ifndef AWC_TESTS_SUPPORT_CONSOLE_FIXTURE_H_
#define AWC_TESTS_SUPPORT_CONSOLE_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/harness.h"

namespace awc::testing {

inline constexpr const char* kHostileKind = "<script>alert(1)</script>";

// What RunFleet left behind.
struct FleetRun {
  std::vector<int64_t> completed;  // test_complete jobs, oldest first
  int64_t failed = 0;              // test_fail: dead, handler_failed
  int64_t hostile = 0;             // kind kHostileKind: dead, unknown_kind
  int64_t gc = 0;                  // gc_sweep of tenant acme: completed
  int64_t validate = 0;            // snapshot_validate of `snapshot`
  int64_t snapshot = 0;            // FAILED: its root is not in the store
  int64_t sleeping = 0;            // test_sleep, RUNNING while the fleet runs
  int64_t scheduled = 0;           // PENDING, an hour from now
  int64_t cancelled = 0;           // CANCELLED before it ran
};

// On a migrated `db`: tenants acme and globex, a workspace, a READY and a
// VALIDATING snapshot; then `fleet` (already started, see FleetOptions)
// works `completed` test_complete jobs and one of each other kind of
// FleetRun until all but the sleeping and scheduled ones are finished.
FleetRun RunFleet(TestDatabase& db, DaemonProcess& fleet, int completed);

// `awcctl serve` on 127.0.0.1 (or `listen`), for `db`, until destroyed.
class ConsoleProcess {
 public:
  explicit ConsoleProcess(const TestDatabase& db, std::string listen = "")
      : ConsoleProcess(db.url(), std::move(listen)) {}
  // The same for the database at `url` (another role's, say).
  ConsoleProcess(const std::string& url, std::string listen);
  ~ConsoleProcess();

  int port() const { return port_; }
  DaemonProcess& process() { return *process_; }
  // Waits until it answers; false (and the reason in its stderr) if not.
  bool WaitListening();
  // GET `target` with Host 127.0.0.1:<port>.
  HttpReply Get(const std::string& target);
  // Any request line: "POST /jobs HTTP/1.0".
  HttpReply Send(const std::string& request_line,
                 const std::string& extra_headers = "");

 private:
  int port_ = 0;
  std::unique_ptr<DaemonProcess> process_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_CONSOLE_FIXTURE_H_
