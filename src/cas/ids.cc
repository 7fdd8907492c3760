#include "cas/ids.h"

namespace awc::cas {
namespace {

bool LowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

bool IsValidTenantId(std::string_view id) {
  if (id.empty() || id.size() > 63 || !LowerAlnum(id[0])) return false;
  for (char c : id.substr(1)) {
    if (!LowerAlnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

bool IsValidDigest(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (digest.size() != kPrefix.size() + 64 || !digest.starts_with(kPrefix)) {
    return false;
  }
  for (char c : digest.substr(kPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace awc::cas
