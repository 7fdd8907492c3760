#include "common/host_name.h"

#include <unistd.h>

#include <string>
#include <utility>

#include "common/host_name_testing.h"

namespace awc {
namespace {

// SetHostNameForTest's name; set before any process of the test daemon
// starts, read only after.
std::string& NameForTest() {
  static std::string* name = new std::string();
  return *name;
}

}  // namespace

std::string HostName() {
  if (!NameForTest().empty()) return NameForTest();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host[0] != '\0' ? host : "unknown";
}

void SetHostNameForTest(std::string name) { NameForTest() = std::move(name); }

}  // namespace awc
