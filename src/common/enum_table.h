// Closed lists kept as tables: the rows of an enum, each with its `value`
// and its `name` (and whatever else the list needs), in one constexpr array
// beside the enum (queue/job.h, catalog/states.h, ...). The enum's name and
// its parsing are derived from the table, and every listing of its values
// iterates the table, so a value added there is known everywhere at once.
#ifndef AWC_COMMON_ENUM_TABLE_H_
#define AWC_COMMON_ENUM_TABLE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace awc {

// The row of `value`, or nullptr when the table has none.
template <typename Row, size_t N, typename E>
constexpr const Row* FindRow(const Row (&rows)[N], E value) {
  for (const Row& row : rows) {
    if (row.value == value) return &row;
  }
  return nullptr;
}

// The row named `name` exactly, or nullptr.
template <typename Row, size_t N>
constexpr const Row* FindRowNamed(const Row (&rows)[N], std::string_view name) {
  for (const Row& row : rows) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

// The names in table order, `sep` between them and `last` before the last:
// JoinNames(rows, ", ", " or ") is "A, B or C".
template <typename Row, size_t N>
std::string JoinNames(const Row (&rows)[N], std::string_view sep = ", ",
                      std::string_view last = ", ") {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? last : sep;
    out += rows[i].name;
  }
  return out;
}

}  // namespace awc

#endif  // AWC_COMMON_ENUM_TABLE_H_
