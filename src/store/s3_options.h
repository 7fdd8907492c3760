// S3Options: what the s3:// store is opened with, and the syntax of its
// endpoint and region.
//
// This file is built in every build, also without the S3 store, because the
// settings are checked against the same syntax (docs/configuration.md,
// "Configuration"): a value that passes ParseEndpoint and IsValidRegion here
// is one the store accepts. Errors name no setting; callers add it.
#ifndef AWC_STORE_S3_OPTIONS_H_
#define AWC_STORE_S3_OPTIONS_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::store {

// Every value is expected to be valid already: the store checks only that
// the endpoint parses, and refuses nothing else an operator could set.
struct S3Options {
  std::string endpoint;  // "http(s)://host[:port][/base/path]"
  std::string region = "us-east-1";
  // Both set, or both empty (unsigned requests).
  std::string access_key_id;
  std::string secret_access_key;
  bool force_path_style = false;  // path-style instead of virtual-host URLs
  int max_concurrency = 16;       // transfers at once, >= 1
  long timeout_ms = 30000;        // stall timeout, >= 1
};

namespace s3 {

// An S3 endpoint: "http(s)://host[:port][/base/path]".
struct Endpoint {
  std::string scheme;     // "http" or "https"
  std::string authority;  // "host" or "host:port" ("[v6]:port" kept as is)
  std::string base_path;  // "" or "/base" without a trailing '/'
};

// Parses an endpoint URL. Refuses user info (credentials), queries,
// fragments and schemes other than http and https; errors do not echo the
// value.
Result<Endpoint> ParseEndpoint(std::string_view url);

// RFC 3986 unreserved: A-Z a-z 0-9 - . _ ~
bool IsUnreserved(char c);

// A region name: 1 to 64 of a-z 0-9 '-'.
bool IsValidRegion(std::string_view region);

}  // namespace s3
}  // namespace awc::store

#endif  // AWC_STORE_S3_OPTIONS_H_
