// Reading the INI file of the settings (internal to config/), with inih.
//
// Every error names the file and the line: unknown sections and keys,
// syntax errors, over-long lines, values a setting refuses. The message is
// the one of the first line in error.
#ifndef AWC_CONFIG_INI_FILE_H_
#define AWC_CONFIG_INI_FILE_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "config/settings.h"

namespace awc::config {

// Applies the file's values to `s`; `sources[n]` of each setting set
// becomes "file <path>" (parallel to Specs()).
Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources);

// A whole file (a _FILE secret), trailing newlines dropped. A path that
// cannot be read, a directory included, is an error.
Result<std::string> ReadSecretFile(const std::string& path);

}  // namespace awc::config

#endif  // AWC_CONFIG_INI_FILE_H_
