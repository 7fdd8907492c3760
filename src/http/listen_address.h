// ListenAddress: where the HTTP listener of /metrics, /healthz and /readyz
// binds (AWC_METRICS_LISTEN), and the syntax of its text form.
#ifndef AWC_HTTP_LISTEN_ADDRESS_H_
#define AWC_HTTP_LISTEN_ADDRESS_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::http {

struct ListenAddress {
  std::string host;  // "" = all interfaces; an IPv6 address without brackets
  int port = 0;      // 1..65535

  // "host:port", "[v6]:port" or ":port".
  std::string ToString() const;
};

// Splits "host:port", "[v6]:port" or ":port" (all interfaces). The port is
// decimal digits only. Errors quote the text and name no setting.
Result<ListenAddress> ParseListenAddress(std::string_view text);

}  // namespace awc::http

#endif  // AWC_HTTP_LISTEN_ADDRESS_H_
