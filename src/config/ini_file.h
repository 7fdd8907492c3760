// Reading the INI file of the settings (internal to config/), with inih.
//
// Every error names the file and the line: unknown sections and keys,
// syntax errors, over-long lines, values a setting refuses. The message is
// the one of the first line in error.
#ifndef AWC_CONFIG_INI_FILE_H_
#define AWC_CONFIG_INI_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/settings.h"

namespace awc::config {

// Applies the file's values to `s`; `sources[n]` of each setting set
// becomes "file <path>" (parallel to Specs()).
Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources);

// The largest file ReadSecretFile() reads.
inline constexpr uint64_t kSecretFileMaxBytes = 64 * 1024;

// A whole file (a _FILE secret), trailing newlines dropped. Only a regular
// file (or a link to one) of at most kSecretFileMaxBytes is read: anything
// else — a directory, a device, a FIFO, a larger file — is an error naming
// the path, as is a path that cannot be read.
Result<std::string> ReadSecretFile(const std::string& path);

}  // namespace awc::config

#endif  // AWC_CONFIG_INI_FILE_H_
