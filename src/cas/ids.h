// Syntax of the names the store is keyed by (design brief section 5).
// Everything that builds a store key or a path validates with these first.
#ifndef AWC_CAS_IDS_H_
#define AWC_CAS_IDS_H_

#include <string_view>

namespace awc::cas {

// ^[a-z0-9][a-z0-9_-]{0,62}$
bool IsValidTenantId(std::string_view id);

// "sha256:" followed by 64 lowercase hex digits.
bool IsValidDigest(std::string_view digest);

}  // namespace awc::cas

#endif  // AWC_CAS_IDS_H_
