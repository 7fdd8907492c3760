#include "store/s3_options.h"

#include <algorithm>

namespace awc::store::s3 {
namespace {

Status BadEndpoint(const char* why) { return Status::InvalidArgument(why); }

}  // namespace

bool IsUnreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

Result<Endpoint> ParseEndpoint(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) {
    return BadEndpoint("expected http://host[:port] or https://host[:port]");
  }
  Endpoint ep;
  ep.scheme = std::string(url.substr(0, sep));
  std::transform(ep.scheme.begin(), ep.scheme.end(), ep.scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(tolower(c)); });
  if (ep.scheme != "http" && ep.scheme != "https") {
    return BadEndpoint("the scheme must be http or https");
  }
  std::string_view rest = url.substr(sep + 3);
  if (rest.find('@') != std::string_view::npos) {
    return BadEndpoint(
        "must not carry credentials; use AWC_S3_ACCESS_KEY_ID and "
        "AWC_S3_SECRET_ACCESS_KEY");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return BadEndpoint("takes no query or fragment");
  }
  size_t slash = rest.find('/');
  ep.authority = std::string(rest.substr(0, slash));
  if (ep.authority.empty()) return BadEndpoint("has no host");
  for (char c : ep.authority) {
    bool ok = IsUnreserved(c) || c == ':' || c == '[' || c == ']';
    if (!ok) return BadEndpoint("has an invalid host");
  }
  if (slash != std::string_view::npos) {
    std::string path(rest.substr(slash));
    while (!path.empty() && path.back() == '/') path.pop_back();
    for (char c : path) {
      if (!IsUnreserved(c) && c != '/') {
        return BadEndpoint("has a path with characters that need encoding");
      }
    }
    ep.base_path = path;
  }
  return ep;
}

bool IsValidRegion(std::string_view region) {
  if (region.empty() || region.size() > 64) return false;
  return std::all_of(region.begin(), region.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace awc::store::s3
