#include "store/s3/s3_url.h"

#include <algorithm>

#include "common/percent_encode.h"

namespace awc::store::s3 {
namespace {

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

}  // namespace

std::string CanonicalQuery(
    std::vector<std::pair<std::string, std::string>> params) {
  for (auto& [k, v] : params) {
    k = PercentEncode(k, false);
    v = PercentEncode(v, false);
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

Addressing::Addressing(Endpoint endpoint, std::string bucket,
                       std::string prefix, bool path_style)
    : endpoint_(std::move(endpoint)),
      bucket_(std::move(bucket)),
      prefix_(std::move(prefix)),
      path_style_(path_style) {}

std::string Addressing::ObjectName(const ObjectKey& key) const {
  std::string rel = RelativeKey(key);
  return prefix_.empty() ? rel : prefix_ + "/" + rel;
}

std::string Addressing::TenantPrefix(std::string_view tenant_id) const {
  std::string p = std::string(tenant_id) + "/sha256/";
  return prefix_.empty() ? p : prefix_ + "/" + p;
}

std::string Addressing::RootName(std::string_view name) const {
  return prefix_.empty() ? std::string(name)
                         : prefix_ + "/" + std::string(name);
}

std::string Addressing::Origin() const {
  if (path_style_) return endpoint_.scheme + "://" + endpoint_.authority;
  return endpoint_.scheme + "://" + bucket_ + "." + endpoint_.authority;
}

std::string Addressing::ObjectUrl(std::string_view object_name) const {
  std::string url = Origin() + endpoint_.base_path;
  if (path_style_) url += "/" + PercentEncode(bucket_, false);
  url += "/" + PercentEncode(object_name, true);
  return url;
}

std::string Addressing::BucketUrl(std::string_view query) const {
  std::string url = Origin() + endpoint_.base_path;
  url += path_style_ ? "/" + PercentEncode(bucket_, false) : "/";
  if (!query.empty()) {
    url.push_back('?');
    url += query;
  }
  return url;
}

std::optional<std::string> DigestFromListedName(std::string_view tenant_prefix,
                                                std::string_view name) {
  if (!name.starts_with(tenant_prefix)) return std::nullopt;
  std::string_view rest = name.substr(tenant_prefix.size());
  // "<hex[0:2]>/<64 hex>"
  if (rest.size() != 2 + 1 + 64 || rest[2] != '/') return std::nullopt;
  std::string_view fan = rest.substr(0, 2);
  std::string_view hex = rest.substr(3);
  if (!IsLowerHex(hex) || hex.substr(0, 2) != fan) return std::nullopt;
  return "sha256:" + std::string(hex);
}

}  // namespace awc::store::s3
