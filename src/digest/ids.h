// Object identity: the syntax of the tenant ids and digests the object store
// is keyed by (docs/store.md, "Object store"). Everything that builds
// a store key or a path validates with these first.
#ifndef AWC_DIGEST_IDS_H_
#define AWC_DIGEST_IDS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace awc::digest {

// ^[a-z0-9][a-z0-9_-]{0,62}$
bool IsValidTenantId(std::string_view id);

// "sha256:" followed by 64 lowercase hex digits.
bool IsValidDigest(std::string_view digest);

// A digest as its 32 raw bytes: a third of its text form, and no heap
// block (closures keep millions of them).
using RawDigest = std::array<uint8_t, 32>;

// Parses a digest; false when it is not valid (IsValidDigest).
bool ParseDigest(std::string_view digest, RawDigest* out);
// "sha256:" + 64 lowercase hex digits.
std::string FormatDigest(const RawDigest& raw);

}  // namespace awc::digest

#endif  // AWC_DIGEST_IDS_H_
