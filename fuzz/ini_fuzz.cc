// The INI reader of the settings: never crashes, and every refusal names
// the file (and, for what is in it, the line).
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "config/ini_file.h"
#include "config/setting_spec.h"
#include "fuzz/fuzz_util.h"

namespace {

// One file per process, rewritten for every input.
const std::string& IniPath() {
  static const std::string path = [] {
    const char* tmp = getenv("TMPDIR");
    return std::string(tmp != nullptr ? tmp : "/tmp") + "/awc-ini-fuzz-" +
           std::to_string(getpid()) + ".conf";
  }();
  return path;
}

void WriteAll(const std::string& path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  awc::fuzz::Require(fd >= 0, "the scratch file can be written");
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    awc::fuzz::Require(n > 0, "the scratch file can be written");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = IniPath();
  WriteAll(path, awc::fuzz::AsText(data, size));
  awc::config::Settings settings;
  std::vector<std::string> sources(awc::config::Specs().size(), "default");
  awc::Status s = awc::config::LoadIni(path, &settings, &sources);
  if (!s.ok()) {
    awc::fuzz::Require(awc::fuzz::Contains(s.message(), path),
                       "an INI error names the file");
  }
  return 0;
}
