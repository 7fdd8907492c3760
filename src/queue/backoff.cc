#include "queue/backoff.h"

#include <cmath>

namespace awc::queue {

Xorshift32 Xorshift32::FromWorkerId(std::string_view worker_id) {
  uint32_t h = 2166136261u;
  for (unsigned char c : worker_id) {
    h ^= c;
    h *= 16777619u;
  }
  return Xorshift32(h);
}

uint32_t Xorshift32::Next() {
  uint32_t x = state_;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  state_ = x;
  return x;
}

int64_t BackoffBaseSecs(int retry) {
  if (retry < 1) retry = 1;
  // 5 * 2^6 already exceeds the cap; avoid shifting further.
  if (retry > 7) return kBackoffCapSecs;
  int64_t base = int64_t{5} << (retry - 1);
  return base < kBackoffCapSecs ? base : kBackoffCapSecs;
}

double BackoffDelaySecs(int retry, Xorshift32& rng) {
  int64_t base_ms = BackoffBaseSecs(retry) * 1000;
  int64_t jitter_ms = static_cast<int64_t>(
      std::floor(rng.NextUnit() * static_cast<double>(base_ms)));
  return static_cast<double>(base_ms + jitter_ms) / 1000.0;
}

}  // namespace awc::queue
