// Helpers of the obs/ unit tests that read rendered /metrics text.
#ifndef AWC_OBS_METRICS_TEST_SUPPORT_H_
#define AWC_OBS_METRICS_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "obs/metrics.h"

namespace awc::obs::testing {

inline Metrics NewMetrics() {
  Result<Metrics> m = Metrics::CreateShared();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Whether `text` has exactly this line.
inline bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

}  // namespace awc::obs::testing

#endif  // AWC_OBS_METRICS_TEST_SUPPORT_H_
