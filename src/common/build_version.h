// This build's release (the project version it was built from): in
// `awc-worker -V`, the startup event, awc_build_info, and each worker's
// heartbeat, where the builds of a fleet upgraded host by host tell one
// another apart (docs/operations.md, "Rolling upgrades").
#ifndef AWC_COMMON_BUILD_VERSION_H_
#define AWC_COMMON_BUILD_VERSION_H_

namespace awc {

const char* BuildVersion();

}  // namespace awc

#endif  // AWC_COMMON_BUILD_VERSION_H_
