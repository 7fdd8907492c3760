#include "http/listen_address.h"

#include "common/numbers.h"

namespace awc::http {

std::string ListenAddress::ToString() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

Result<ListenAddress> ParseListenAddress(std::string_view view) {
  std::string text(view);
  ListenAddress out;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close == 1 || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return Status::InvalidArgument("\"" + text +
                                     "\" is not host:port or [v6]:port");
    }
    out.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("\"" + text + "\" is not host:port");
    }
    out.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    // "::1:80" would be ambiguous and "::1" would read as port 1.
    if (out.host.find_first_of(":[]") != std::string::npos) {
      return Status::InvalidArgument(
          "\"" + text + "\" is not host:port (write IPv6 as [v6]:port)");
    }
  }
  if (out.host.find_first_of(" \t\r\n/") != std::string::npos) {
    return Status::InvalidArgument("\"" + text + "\" has an invalid host");
  }
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  int64_t p = digits ? *ParseInt64(port) : 0;
  if (p < 1 || p > 65535) {
    return Status::InvalidArgument("\"" + text +
                                   "\" has no valid port (1..65535)");
  }
  out.port = static_cast<int>(p);
  return out;
}

}  // namespace awc::http
