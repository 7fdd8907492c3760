// Test-only seam of the POSIX Env (common/env_posix.cc): paths resolved
// without symbolic links (Env::Symlinks::kRefuseInPath) use openat2() where
// the kernel has it, and check each directory otherwise; tests run the
// second way on kernels that have the first.
#ifndef AWC_COMMON_ENV_POSIX_TESTING_H_
#define AWC_COMMON_ENV_POSIX_TESTING_H_

namespace awc {

// Whether Env::Default() may use openat2() (true unless a test said not).
void AllowOpenat2ForTest(bool allowed);

}  // namespace awc

#endif  // AWC_COMMON_ENV_POSIX_TESTING_H_
