// The awc-manifest/1 format (a contract with producers; docs/store.md,
// "Manifests and closures"):
//
//   {"format":"awc-manifest/1",
//    "entries":[{"name":"README","kind":"blob","digest":"sha256:…","size":12},
//               {"name":"src","kind":"manifest","digest":"sha256:…","size":311}]}
//
// ParseManifest is strict: UTF-8 JSON, exactly the keys above at both
// levels (no unknown or duplicate keys), format exactly "awc-manifest/1",
// entries sorted by name in byte order with no duplicates, names non-empty
// and free of '/' and NUL (and not "." or ".."), kind "blob" or "manifest",
// digests "sha256:" + 64 lowercase hex, size a JSON integer >= 0 (and
// <= 2^63-1; 1.0 is not an integer). Any violation is kCorruption with a
// message "malformed manifest: <rule>", rules about one entry prefixed with
// its 0-based index ("entry 3: digest is malformed"); the message never
// echoes the bytes. SerializeManifest writes the canonical compact form
// that importers store: keys in the order above, no whitespace, strings
// escaped minimally (only '"', '\\' and control characters; \b \f \n \r \t
// or \u00xx), everything else as raw UTF-8.
#ifndef AWC_CAS_MANIFEST_H_
#define AWC_CAS_MANIFEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace awc::cas {

inline constexpr std::string_view kManifestFormat = "awc-manifest/1";

struct ManifestEntry {
  enum class Kind { kBlob, kManifest };
  std::string name;
  Kind kind = Kind::kBlob;
  std::string digest;
  uint64_t size = 0;

  bool operator==(const ManifestEntry&) const = default;
};

struct Manifest {
  std::vector<ManifestEntry> entries;  // sorted by name

  bool operator==(const Manifest&) const = default;
};

Result<Manifest> ParseManifest(std::string_view bytes);

// Canonical bytes of `manifest`, which must be valid as ParseManifest
// defines it (sorted, unique, well-formed names and digests, sizes <=
// 2^63-1); then ParseManifest(SerializeManifest(m)) == m.
std::string SerializeManifest(const Manifest& manifest);

// "sha256:" + hex SHA-256 of `bytes`.
std::string DigestOf(std::string_view bytes);

}  // namespace awc::cas

#endif  // AWC_CAS_MANIFEST_H_
