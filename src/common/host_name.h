// HostName: this machine's name as the processes report it (the workers'
// heartbeats, the scheduler's lease holder).
#ifndef AWC_COMMON_HOST_NAME_H_
#define AWC_COMMON_HOST_NAME_H_

#include <string>

namespace awc {

// gethostname(2), or "unknown" when it fails or is empty.
std::string HostName();

}  // namespace awc

#endif  // AWC_COMMON_HOST_NAME_H_
