// AWC_CAS_URL parsing: never crashes, accepts only well-formed URLs, and
// never echoes user info (credentials) from a refused URL.
#include <cctype>
#include <string>

#include "fuzz/fuzz_util.h"
#include "store/store_url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using awc::fuzz::Require;
  using awc::store::StoreUrl;
  std::string_view url = awc::fuzz::AsText(data, size);
  for (bool s3_built : {true, false}) {
    awc::Result<StoreUrl> r = awc::store::ParseStoreUrl(url, s3_built);
    if (!r.ok()) {
      Require(r.status().IsInvalidArgument(),
              "a refused URL is kInvalidArgument");
      // Differential check: the same URL with the letters and digits of
      // its user info replaced gets the same message, so nothing of the
      // user info was echoed.
      size_t at = url.find('@');
      size_t sep = url.find("://");
      if (at != std::string_view::npos && sep != std::string_view::npos &&
          at > sep + 3) {
        std::string masked(url);
        for (size_t i = sep + 3; i < at; ++i) {
          if (isalnum(static_cast<unsigned char>(masked[i]))) masked[i] = 'x';
        }
        awc::Result<StoreUrl> other =
            awc::store::ParseStoreUrl(masked, s3_built);
        Require(!other.ok() && other.status().message() == r.status().message(),
                "user info is never echoed");
      }
      continue;
    }
    switch (r->scheme) {
      case StoreUrl::Scheme::kMemory:
        Require(url == "memory://", "memory:// takes nothing else");
        break;
      case StoreUrl::Scheme::kFile:
        Require(!r->path.empty() && r->path[0] == '/', "file:// is absolute");
        Require(r->path.size() == 1 || r->path.back() != '/',
                "file:// has no trailing slash");
        break;
      case StoreUrl::Scheme::kS3:
        Require(s3_built, "s3:// only where built");
        Require(!r->bucket.empty(), "s3:// names a bucket");
        Require(r->prefix.empty() ||
                    (r->prefix.front() != '/' && r->prefix.back() != '/'),
                "the prefix has no leading or trailing slash");
        break;
    }
  }
  return 0;
}
