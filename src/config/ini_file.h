// Reading the INI file of the settings (internal to config/).
//
// The syntax (awc-worker.conf(5)): UTF-8 text, an optional byte order mark,
// LF or CRLF line ends, lines of any length. A line is blank, a comment
// (first non-blank character ';' or '#'), a "[section]" header, or
// "key = value" (or "key: value"); blanks around keys and values are
// dropped, and a value ends at a ';' that follows a blank (an inline
// comment). The file is a regular file of at most 1 MiB.
//
// Every error names the file and the line: unknown sections and keys, a
// key set twice in a section, a NUL byte, syntax errors, values a setting
// refuses. The first line in error is reported, on one line: a control
// byte in the file's name or a key is written \xHH.
#ifndef AWC_CONFIG_INI_FILE_H_
#define AWC_CONFIG_INI_FILE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/settings.h"

namespace awc::config {

// Applies the file's values to `s`; `sources[n]` of each setting set
// becomes "file <path>" (parallel to Specs()).
Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources);

// The most a _FILE secret may hold.
inline constexpr size_t kMaxSecretBytes = 64 * 1024;

// A whole regular file of at most `max_bytes`. Anything else — a path that
// cannot be read, a directory, a FIFO, a device, a larger file — is an
// InvalidArgument naming the path, found without blocking.
Result<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes);

// A _FILE secret: ReadBoundedFile(path, kMaxSecretBytes), trailing newlines
// dropped. The value may be the secret itself, set by mistake where its
// path belongs, so an error shows it only as a path: a URL with its
// credentials masked and a hint that the setting takes a path, an absolute
// or ./ path as it is, anything else not at all.
Result<std::string> ReadSecretFile(const std::string& path);

}  // namespace awc::config

#endif  // AWC_CONFIG_INI_FILE_H_
