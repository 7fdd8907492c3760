#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/env.h"

namespace awc {
namespace {

double ClockSeconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

class PosixEnv : public Env {
 public:
  double NowMonotonic() override { return ClockSeconds(CLOCK_MONOTONIC); }
  double NowWall() override { return ClockSeconds(CLOCK_REALTIME); }

  Result<std::string> ReadFile(const std::string& path) override {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return Status::IoError("cannot open \"" + path + "\": " + strerror(errno));
    }
    std::string out;
    char buf[65536];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        Status s = Status::IoError("cannot read \"" + path + "\": " +
                                   strerror(errno));
        close(fd);
        return s;
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return out;
  }
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();
  return env;
}

}  // namespace awc
