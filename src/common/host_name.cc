#include "common/host_name.h"

#include <unistd.h>

namespace awc {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host[0] != '\0' ? host : "unknown";
}

}  // namespace awc
