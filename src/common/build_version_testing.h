// Test-only seam of the build's version (common/build_version.h): a test
// build of the daemon that stands for a later release says so.
#ifndef AWC_COMMON_BUILD_VERSION_TESTING_H_
#define AWC_COMMON_BUILD_VERSION_TESTING_H_

namespace awc {

// BuildVersion() returns `version` from now on (a string that lives for the
// whole process); before anything reads it.
void SetBuildVersionForTest(const char* version);

}  // namespace awc

#endif  // AWC_COMMON_BUILD_VERSION_TESTING_H_
