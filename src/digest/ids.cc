#include "digest/ids.h"

namespace awc::digest {
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

bool ParseDigest(std::string_view digest, RawDigest* out) {
  if (!IsValidDigest(digest)) return false;
  auto nibble = [](char c) {
    return static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  };
  std::string_view hex = digest.substr(7);
  for (size_t i = 0; i < out->size(); ++i) {
    (*out)[i] =
        static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return true;
}

std::string FormatDigest(const RawDigest& raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  out.reserve(7 + 2 * raw.size());
  for (uint8_t b : raw) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace awc::digest
