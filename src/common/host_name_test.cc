#include "common/host_name.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

namespace awc {
namespace {

TEST(HostNameTest, IsTheKernelsNodeName) {
  utsname u = {};
  ASSERT_EQ(uname(&u), 0);
  std::string expected = u.nodename[0] != '\0' ? u.nodename : "unknown";
  EXPECT_EQ(HostName(), expected);
}

}  // namespace
}  // namespace awc
