#include "migrate/compatibility.h"

#include <algorithm>

namespace awc::migrate {
namespace {

int RequiredBy(const AppliedCompatibility& a) {
  return a.compatible_from.value_or(a.version);
}

}  // namespace

std::map<int, int> CompatibleFrom(const std::vector<Migration>& migrations) {
  std::map<int, int> out;
  int from = 0;
  for (const Migration& m : migrations) {
    if (from == 0 || m.compatibility == Compatibility::kBreaking) {
      from = m.version;
    }
    out[m.version] = from;
  }
  return out;
}

std::optional<AppliedCompatibility> FirstIncompatible(
    const std::vector<AppliedCompatibility>& applied, int known) {
  for (const AppliedCompatibility& a : applied) {
    if (a.version > known && RequiredBy(a) > known) return a;
  }
  return std::nullopt;
}

int RequiredVersion(const std::vector<AppliedCompatibility>& applied) {
  int required = 0;
  for (const AppliedCompatibility& a : applied) {
    required = std::max(required, RequiredBy(a));
  }
  return required;
}

}  // namespace awc::migrate
