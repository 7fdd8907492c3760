// HostName: this machine's name as the processes report it (the workers'
// heartbeats, the scheduler's lease holder, the default AWC_WORKER_ID, the
// master's look for worker ids on other hosts). Every process reads it
// here, so that tests can name the host (host_name_testing.h).
#ifndef AWC_COMMON_HOST_NAME_H_
#define AWC_COMMON_HOST_NAME_H_

#include <string>

namespace awc {

// gethostname(2), or "unknown" when it fails or is empty.
std::string HostName();

}  // namespace awc

#endif  // AWC_COMMON_HOST_NAME_H_
