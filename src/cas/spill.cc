#include "cas/spill.h"

#include <cstdio>
#include <cstdlib>
#include <random>

namespace awc::cas {

SpillFiles::SpillFiles(const SpillOptions& options)
    : env_(options.env != nullptr ? options.env : Env::Default()) {
  std::string dir = options.dir;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::random_device rd;
  char tag[17];
  snprintf(tag, sizeof tag, "%08x%08x", rd(), rd());
  prefix_ = dir + "/awc-spill-" + tag + "-";
}

std::string SpillFiles::NewPath() { return prefix_ + std::to_string(next_++); }

void SpillFiles::Remove(const std::string& path) {
  (void)env_->RemoveFile(path, Env::Symlinks::kFollow);
}

}  // namespace awc::cas
