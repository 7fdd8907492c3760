// Helpers shared by the libFuzzer targets of fuzz/.
#ifndef AWC_FUZZ_FUZZ_UTIL_H_
#define AWC_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace awc::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Stops the run with a message when a property does not hold; libFuzzer
// then saves the input as a crash artifact.
inline void Require(bool holds, const char* property) {
  if (holds) return;
  fprintf(stderr, "property violated: %s\n", property);
  abort();
}

// True when `haystack` contains `needle` (a non-empty string).
inline bool Contains(std::string_view haystack, std::string_view needle) {
  return !needle.empty() && haystack.find(needle) != std::string_view::npos;
}

}  // namespace awc::fuzz

#endif  // AWC_FUZZ_FUZZ_UTIL_H_
