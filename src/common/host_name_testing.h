// Test-only seam of HostName() (common/host_name.cc): the tests run two
// fleets on one machine as if on two hosts (the test daemon sets the name
// from AWC_TEST_HOST_NAME, tests/support/test_daemon_main.cc); the shipped
// programs never call it.
#ifndef AWC_COMMON_HOST_NAME_TESTING_H_
#define AWC_COMMON_HOST_NAME_TESTING_H_

#include <string>

namespace awc {

// From now on HostName() returns `name` ("" gives back gethostname()).
void SetHostNameForTest(std::string name);

}  // namespace awc

#endif  // AWC_COMMON_HOST_NAME_TESTING_H_
