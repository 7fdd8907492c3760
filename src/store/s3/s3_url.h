// Addressing for the s3:// store: the endpoint, object names inside the
// bucket, and the request URLs built from them.
//
// URLs are built in the canonical form that SigV4 signs. libcurl 7.88 signs
// the path and query exactly as given (it does not normalise them), so
// every path segment is percent-encoded per RFC 3986 (unreserved bytes and
// '/' kept) and every query is sorted with names and values encoded.
#ifndef AWC_STORE_S3_S3_URL_H_
#define AWC_STORE_S3_S3_URL_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "store/object_store.h"
#include "store/s3_options.h"

namespace awc::store::s3 {

// "k1=v1&k2=v2" sorted by name, names and values PercentEncode()d
// (common/percent_encode.h, SigV4's URI encoding); a parameter
// with an empty value is written "k=", as SigV4 canonicalises it.
std::string CanonicalQuery(
    std::vector<std::pair<std::string, std::string>> params);

class Addressing {
 public:
  Addressing(Endpoint endpoint, std::string bucket, std::string prefix,
             bool path_style);

  const std::string& bucket() const { return bucket_; }

  // "[prefix/]<tenant>/sha256/<hex[0:2]>/<hex>": the object's name in the
  // bucket.
  std::string ObjectName(const ObjectKey& key) const;
  // "[prefix/]<tenant>/sha256/": what ListObjectsV2 lists for a tenant.
  std::string TenantPrefix(std::string_view tenant_id) const;
  // "[prefix/]<name>": a name beside the tenants (the store marker).
  std::string RootName(std::string_view name) const;

  // Path-style "scheme://host/bucket/<name>" or virtual-host
  // "scheme://bucket.host/<name>", the name encoded.
  std::string ObjectUrl(std::string_view object_name) const;
  // The bucket's URL, with "?<query>" appended when `query` is not empty
  // (path-style "scheme://host/bucket", virtual-host "scheme://bucket.host/").
  std::string BucketUrl(std::string_view query) const;

 private:
  std::string Origin() const;  // scheme://authority, bucket host if virtual

  Endpoint endpoint_;
  std::string bucket_;
  std::string prefix_;
  bool path_style_;
};

// The digest ("sha256:<hex>") of a listed object name, given the tenant
// prefix it was listed under; nullopt for names that are not a well-formed
// "<prefix><hex[0:2]>/<hex>" (foreign objects under the prefix).
std::optional<std::string> DigestFromListedName(std::string_view tenant_prefix,
                                                std::string_view name);

}  // namespace awc::store::s3

#endif  // AWC_STORE_S3_S3_URL_H_
