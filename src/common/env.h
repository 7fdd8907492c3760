// Env: the operating-system services awc-worker uses, behind an interface
// so tests can substitute clocks and inject faults (after LevelDB's Env).
//
// Env::Default() is the real system and lives for the whole process.
#ifndef AWC_COMMON_ENV_H_
#define AWC_COMMON_ENV_H_

#include <string>

#include "common/status.h"

namespace awc {

class Env {
 public:
  virtual ~Env() = default;

  static Env* Default();

  // Seconds on a clock that never jumps (CLOCK_MONOTONIC).
  virtual double NowMonotonic() = 0;
  // Seconds since the epoch (CLOCK_REALTIME).
  virtual double NowWall() = 0;

  // Reads a whole file.
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
};

}  // namespace awc

#endif  // AWC_COMMON_ENV_H_
