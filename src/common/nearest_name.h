// The name a mistyped one was most likely meant to be: for the "did you
// mean" of a warning about a name nobody reads (an AWC_* variable that is no
// setting, awc-worker(8), ENVIRONMENT).
//
// Contract: the distance is the number of single-character insertions,
// deletions, substitutions and swaps of two neighbours that turn one name
// into the other (optimal string alignment). NearestName() returns the
// candidate at the least distance when that distance is at most 3 and less
// than a third of `name`'s length, so that a short name is not matched with
// an unrelated one; the first such candidate on a tie; none otherwise, and
// none for a name that is a candidate itself. Never fails.
#ifndef AWC_COMMON_NEAREST_NAME_H_
#define AWC_COMMON_NEAREST_NAME_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace awc {

size_t EditDistance(std::string_view a, std::string_view b);

std::optional<std::string> NearestName(
    std::string_view name, const std::vector<std::string>& candidates);

}  // namespace awc

#endif  // AWC_COMMON_NEAREST_NAME_H_
