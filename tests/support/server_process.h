// Servers the integration tests start for real (s3rver, PgBouncer): each in
// a process group of its own, killed with the test process, ready once it
// accepts connections on its loopback port.
#ifndef AWC_TESTS_SUPPORT_SERVER_PROCESS_H_
#define AWC_TESTS_SUPPORT_SERVER_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace awc::testing {

// Whether something accepts TCP connections on 127.0.0.1:`port`.
bool AcceptsConnections(int port);

// Starts `args` (argv[0] looked up in PATH unless it has a slash) with
// stdin from /dev/null and stdout and stderr appended to `log_path` (""
// for /dev/null), and waits up to `timeout_s` for it to accept connections
// on `port`. Returns its pid, which is also its process group, or -1 when
// it could not be started, exited, or did not come up in time (then it is
// killed and reaped); `why` says which.
pid_t StartServer(std::vector<std::string> args, const std::string& log_path,
                  int port, double timeout_s, std::string* why);

// Kills the process group of `pid` (a StartServer result) and reaps it.
void KillServer(pid_t pid);

// The last `max_bytes` of the file at `path`, "..." first when cut.
std::string FileTail(const std::string& path, size_t max_bytes);

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_SERVER_PROCESS_H_
