#include "config/unknown_variables.h"

#include <cstring>
#include <string_view>

#include "common/nearest_name.h"
#include "config/setting_spec.h"

extern char** environ;

namespace awc::config {
namespace {

// Read outside the table: the INI file's name (config.h), and what the
// tests and benchmarks of this tree read (the S3 server's script, the
// property test's seeds, the browser test's modules and browser, the test
// daemon's host name).
constexpr const char* kOtherKnown[] = {
    "AWC_CONFIG",       "AWC_S3RVER",   "AWC_DAG_PROPERTY_SEEDS",
    "AWC_NODE_MODULES", "AWC_CHROMIUM", "AWC_TEST_HOST_NAME"};

// What an operator may mean: the settings, their _FILE variants and
// AWC_CONFIG.
std::vector<std::string> Settable() {
  std::vector<std::string> out;
  for (const Spec& spec : Specs()) {
    out.emplace_back(spec.env);
    if (spec.file_variant) out.push_back(std::string(spec.env) + "_FILE");
  }
  out.emplace_back("AWC_CONFIG");
  return out;
}

bool IsKnown(const std::string& name,
             const std::vector<std::string>& settable) {
  for (const std::string& s : settable) {
    if (s == name) return true;
  }
  for (const char* other : kOtherKnown) {
    if (name == other) return true;
  }
  return false;
}

}  // namespace

std::string UnknownVariable::Message() const {
  std::string text = EscapeControlBytes(name) + " is not a setting (ignored)";
  if (!nearest.empty()) text += "; did you mean " + nearest + "?";
  return text;
}

std::vector<UnknownVariable> UnknownVariables(
    const std::vector<std::string>& names) {
  const std::vector<std::string> settable = Settable();
  std::vector<UnknownVariable> out;
  for (const std::string& name : names) {
    if (!name.starts_with("AWC_") || IsKnown(name, settable)) continue;
    out.push_back({name, NearestName(name, settable).value_or("")});
  }
  return out;
}

std::vector<std::string> ProcessEnvNames() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = strchr(*e, '=');
    out.emplace_back(*e, eq != nullptr ? eq - *e : strlen(*e));
  }
  return out;
}

}  // namespace awc::config
