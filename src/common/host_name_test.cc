#include "common/host_name.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include "common/host_name_testing.h"

namespace awc {
namespace {

TEST(HostNameTest, IsTheKernelsNodeName) {
  utsname u = {};
  ASSERT_EQ(uname(&u), 0);
  std::string expected = u.nodename[0] != '\0' ? u.nodename : "unknown";
  EXPECT_EQ(HostName(), expected);
}

TEST(HostNameTest, ATestMayNameTheHost) {
  std::string real = HostName();
  SetHostNameForTest("host-b.example.com");
  EXPECT_EQ(HostName(), "host-b.example.com");
  SetHostNameForTest("");
  EXPECT_EQ(HostName(), real);
}

}  // namespace
}  // namespace awc
