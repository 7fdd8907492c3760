#include "common/build_version.h"

#include "common/build_version_testing.h"

namespace awc {
namespace {

const char* version = AWC_VERSION;

}  // namespace

const char* BuildVersion() { return version; }

void SetBuildVersionForTest(const char* v) { version = v; }

}  // namespace awc
