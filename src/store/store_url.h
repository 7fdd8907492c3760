// Store URLs (AWC_CAS_URL): which object store, and where
// (docs/store.md, "Object store").
//
//   memory://               in-process store, one per worker process
//   file:///abs/path        local directory
//   s3://bucket[/prefix]    S3-compatible; only in builds with AWC_WITH_S3
//
// Anything else is an error naming the scheme. Credentials never belong in
// the URL (they are AWC_S3_* settings); a URL with user info is refused
// without being echoed. So is a URL with a control character (below 0x20,
// or 0x7f), in every form: the error names the character's code and its
// place. This parser is the one gate of every store URL (the settings,
// `awcctl store init`). Errors name no setting: callers add "AWC_CAS_URL".
#ifndef AWC_STORE_STORE_URL_H_
#define AWC_STORE_STORE_URL_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace awc::store {

struct StoreUrl {
  enum class Scheme { kMemory, kFile, kS3 };
  Scheme scheme = Scheme::kMemory;
  // file: the absolute root directory, in one form: no repeated '/', no "."
  // segment, no trailing '/' ("/" alone for the root). ".." is kept: through
  // a symbolic link it is not the parent the text shows.
  std::string path;
  std::string bucket;  // s3
  std::string prefix;  // s3: key prefix without leading/trailing '/', or ""

  // The same store: the same place however its URL was spelled
  // (file:///srv/cas/ is file:///srv//cas).
  bool operator==(const StoreUrl&) const = default;
};

// `s3_built` says whether this binary has the S3 store (the default); the
// error for s3:// without it tells how to build with it.
Result<StoreUrl> ParseStoreUrl(std::string_view url,
                               bool s3_built = AWC_WITH_S3);

// "memory", "file" or "s3".
const char* SchemeName(StoreUrl::Scheme scheme);

// The URL in its canonical form ("file:///srv/cas", "s3://bucket/prefix"),
// for messages.
std::string FormatStoreUrl(const StoreUrl& url);

}  // namespace awc::store

#endif  // AWC_STORE_STORE_URL_H_
