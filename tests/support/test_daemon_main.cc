// awc-worker-testd: the daemon with the test handlers added. Test use only.
#include "daemon/daemon.h"
#include "tests/support/test_handlers.h"

int main(int argc, char** argv) {
  return awc::daemon::DaemonMain(argc, argv,
                                 awc::testing::RegisterTestHandlers);
}
