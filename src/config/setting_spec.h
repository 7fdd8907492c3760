// The table of settings (internal to config/): every setting's environment
// name, INI section and key, field, range and secrecy, and the parsing of
// one textual value. The only list of the settings there is.
#ifndef AWC_CONFIG_SETTING_SPEC_H_
#define AWC_CONFIG_SETTING_SPEC_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "common/status.h"
#include "config/settings.h"

namespace awc::config {

using Field = std::variant<std::string Settings::*, int64_t Settings::*,
                           bool Settings::*, obs::LogLevel Settings::*>;
using Check = Status (*)(const std::string&);

// One row per setting. `min`/`max` bound integers.
struct Spec {
  const char* env;
  const char* section;
  const char* key;
  Field field;
  int64_t min = 0;
  int64_t max = 0;
  bool secret = false;        // shown redacted by Describe()
  bool file_variant = false;  // <ENV>_FILE and <key>_file read a file
  Check check = nullptr;      // extra validation of string values
  bool on_off = false;        // a boolean that also reads "on" and "off"
};

std::span<const Spec> Specs();

// Parses `text` into the setting; the error names no setting (callers add
// the setting, and file and line where there is one). An empty value is an
// error for every setting (EmptyValue()): unset means the default. So is a
// control byte (below 0x20, or 0x7f), but for the blanks between the pairs
// of a key=value DATABASE_URL; the error shows neither value nor byte.
Status Apply(const Spec& spec, const std::string& text, Settings* s);

// The error for a setting given as "".
Status EmptyValue();

// The value as -t shows it (secrets redacted), control bytes not escaped.
std::string Show(const Spec& spec, const Settings& s);

// `text` with each control byte (below 0x20, or 0x7f) written \xHH, so
// that it is one line of printable text where it is shown.
std::string EscapeControlBytes(std::string_view text);

}  // namespace awc::config

#endif  // AWC_CONFIG_SETTING_SPEC_H_
