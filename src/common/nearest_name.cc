#include "common/nearest_name.h"

#include <algorithm>

namespace awc {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the table: the one before the last, the last, this one.
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1),
      row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    before.swap(last);
    last.swap(row);
  }
  return last[b.size()];
}

std::optional<std::string> NearestName(
    std::string_view name, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    if (c == name) return std::nullopt;
    size_t d = EditDistance(name, c);
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (best && best_distance <= 3 && 3 * best_distance < name.size()) {
    return best;
  }
  return std::nullopt;
}

}  // namespace awc
