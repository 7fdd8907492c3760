// ParseManifest on arbitrary bytes: never crashes, and whatever it accepts
// survives the canonical round trip (serialize, parse, serialize again).
#include "cas/manifest.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using awc::fuzz::Require;
  awc::Result<awc::cas::Manifest> m =
      awc::cas::ParseManifest(awc::fuzz::AsText(data, size));
  if (!m.ok()) {
    Require(m.status().IsCorruption(), "a refused manifest is kCorruption");
    return 0;
  }
  std::string canonical = awc::cas::SerializeManifest(*m);
  awc::Result<awc::cas::Manifest> again = awc::cas::ParseManifest(canonical);
  Require(again.ok(), "the canonical form parses");
  Require(*again == *m, "the canonical form holds the same entries");
  Require(awc::cas::SerializeManifest(*again) == canonical,
          "serializing is a fixed point");
  return 0;
}
