// awc-worker: the shipped daemon with the built-in handlers.
#include "daemon/daemon.h"
#include "handlers/registry.h"

int main(int argc, char** argv) {
  return awc::daemon::DaemonMain(argc, argv,
                                 awc::handlers::RegisterBuiltinHandlers);
}
