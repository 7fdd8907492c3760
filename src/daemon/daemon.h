// DaemonMain: awc-worker's entry point, shared by the shipped daemon and the
// test build (which registers extra handlers).
//
// Runs the fixed startup sequence of awc-worker(8): read and check the
// configuration (DATABASE_URL and AWC_CAS_URL required) and build the
// modules' options from it, connect, migrate (AWC_MIGRATE=auto) or check
// that the schema is current (AWC_MIGRATE=check), open the object store,
// register the handlers, start the supervisor. A failure at any step prints
// "awc-worker: <error>" on stderr and returns 1. `-t` stops after the first
// step, so it refuses exactly the settings that startup refuses.
#ifndef AWC_DAEMON_DAEMON_H_
#define AWC_DAEMON_DAEMON_H_

#include "handlers/registry.h"

namespace awc::daemon {

using RegisterFn = void (*)(handlers::Registry&);

int DaemonMain(int argc, char** argv, RegisterFn register_handlers);

}  // namespace awc::daemon

#endif  // AWC_DAEMON_DAEMON_H_
