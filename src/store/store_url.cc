#include "store/store_url.h"

#include <cstdio>

namespace awc::store {
namespace {

constexpr const char* kExpected =
    " (expected memory://, file:///absolute/path or s3://bucket[/prefix])";

Status Bad(const std::string& why) { return Status::InvalidArgument(why); }

bool ValidBucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '.';
    if (!ok) return false;
  }
  return b.front() != '-' && b.front() != '.' && b.back() != '-' &&
         b.back() != '.';
}

// A control character has no place in a URL (one is written
// percent-encoded), and would forge lines or terminal commands wherever the
// URL is shown: refused, naming its code, the URL not echoed.
Status RefuseControlCharacters(std::string_view url) {
  for (size_t i = 0; i < url.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(url[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      snprintf(code, sizeof code, "0x%02x", c);
      return Bad("has a control character (" + std::string(code) + " at byte " +
                 std::to_string(i + 1) + ")");
    }
  }
  return Status::OK();
}

// An absolute path in one form: repeated '/' and "." segments dropped, no
// trailing '/' but for the root.
std::string OneFormOfPath(std::string_view path) {
  std::string out;
  size_t at = 0;
  while (at < path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(at, end - at);
    if (!segment.empty() && segment != ".") {
      out += '/';
      out += segment;
    }
    at = end + 1;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

const char* SchemeName(StoreUrl::Scheme scheme) {
  switch (scheme) {
    case StoreUrl::Scheme::kMemory:
      return "memory";
    case StoreUrl::Scheme::kFile:
      return "file";
    case StoreUrl::Scheme::kS3:
      return "s3";
  }
  return "?";
}

std::string FormatStoreUrl(const StoreUrl& url) {
  switch (url.scheme) {
    case StoreUrl::Scheme::kMemory:
      return "memory://";
    case StoreUrl::Scheme::kFile:
      return "file://" + (url.path.empty() ? std::string("/") : url.path);
    case StoreUrl::Scheme::kS3:
      return "s3://" + url.bucket +
             (url.prefix.empty() ? "" : "/" + url.prefix);
  }
  return "?";
}

Result<StoreUrl> ParseStoreUrl(std::string_view url, bool s3_built) {
  size_t sep = url.find("://");
  if (url.empty()) return Bad("is empty");
  AWC_RETURN_IF_ERROR(RefuseControlCharacters(url));
  if (sep == std::string_view::npos) {
    return Bad(std::string("has no scheme") + kExpected);
  }
  std::string scheme(url.substr(0, sep));
  std::string_view rest = url.substr(sep + 3);
  StoreUrl out;
  if (scheme == "memory") {
    if (!rest.empty()) return Bad("memory:// takes nothing after the scheme");
    out.scheme = StoreUrl::Scheme::kMemory;
    return out;
  }
  if (scheme == "file") {
    if (rest.empty() || rest[0] != '/') {
      return Bad("file:// needs an absolute path, as in file:///var/lib/awc");
    }
    if (rest.find_first_of("?#") != std::string_view::npos) {
      return Bad("file:// URLs take no query or fragment");
    }
    out.scheme = StoreUrl::Scheme::kFile;
    out.path = OneFormOfPath(rest);
    return out;
  }
  if (scheme == "s3") {
    if (!s3_built) {
      return Bad(
          "s3:// is not supported by this build; rebuild with "
          "cmake -DAWC_WITH_S3=ON (needs libcurl4-openssl-dev)");
    }
    if (rest.find('@') != std::string_view::npos) {
      return Bad(
          "s3:// URLs must not carry credentials; use "
          "AWC_S3_ACCESS_KEY_ID and AWC_S3_SECRET_ACCESS_KEY");
    }
    if (rest.find_first_of("?#") != std::string_view::npos) {
      return Bad("s3:// URLs take no query or fragment");
    }
    size_t slash = rest.find('/');
    std::string bucket(rest.substr(0, slash));
    if (!ValidBucket(bucket)) {
      return Bad("\"" + bucket +
                 "\" is not a valid bucket name (3-63 of a-z 0-9 . -)");
    }
    std::string prefix;
    if (slash != std::string_view::npos) prefix = rest.substr(slash + 1);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (prefix.find("//") != std::string::npos || prefix.starts_with('/')) {
      return Bad("the s3:// prefix has an empty path segment");
    }
    out.scheme = StoreUrl::Scheme::kS3;
    out.bucket = bucket;
    out.prefix = prefix;
    return out;
  }
  bool printable = !scheme.empty() && scheme.size() <= 16;
  for (char c : scheme)
    printable &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                 c == '-' || c == '.';
  return Bad("unsupported scheme " +
             (printable ? "\"" + scheme + "://\"" : std::string("")) +
             kExpected);
}

}  // namespace awc::store
