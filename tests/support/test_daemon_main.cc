// awc-worker-testd: the daemon with the test handlers added. Test use only.
// AWC_TEST_HOST_NAME, when set, is the host name it reports (its workers'
// heartbeats, its worker ids' default), so that tests run fleets of
// several hosts on one machine.
#include <cstdlib>

#include "common/host_name_testing.h"
#include "daemon/daemon.h"
#include "tests/support/test_handlers.h"

int main(int argc, char** argv) {
  if (const char* host = getenv("AWC_TEST_HOST_NAME")) {
    awc::SetHostNameForTest(host);
  }
  return awc::daemon::DaemonMain(argc, argv,
                                 awc::testing::RegisterTestHandlers);
}
