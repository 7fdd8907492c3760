// Retry backoff with full jitter (docs/queue.md, "Queue semantics").
//
// The k-th retry of a job (k = 1 for the first) waits
//   base(k) = min(300, 5 * 2^(k-1)) seconds
// plus a jitter uniform in [0, base(k)], so the total lies in [base, 2*base].
// The jitter comes from a per-worker xorshift32 seeded from the worker id, so
// a fleet's retries spread out while one worker's sequence is reproducible.
#ifndef AWC_QUEUE_BACKOFF_H_
#define AWC_QUEUE_BACKOFF_H_

#include <cstdint>
#include <string_view>

namespace awc::queue {

// Marsaglia's xorshift32 (13, 17, 5). State is never zero.
class Xorshift32 {
 public:
  explicit Xorshift32(uint32_t seed) : state_(seed != 0 ? seed : 0x9E3779B9u) {}
  // Seeds from the FNV-1a hash of `worker_id`.
  static Xorshift32 FromWorkerId(std::string_view worker_id);

  uint32_t Next();
  // Uniform in [0, 1].
  double NextUnit() { return static_cast<double>(Next()) / 4294967295.0; }

 private:
  uint32_t state_;
};

inline constexpr int64_t kBackoffCapSecs = 300;

// base(k) in seconds, for k >= 1 (k < 1 is treated as 1).
int64_t BackoffBaseSecs(int retry);

// base(k) plus jitter, in seconds with millisecond resolution.
double BackoffDelaySecs(int retry, Xorshift32& rng);

}  // namespace awc::queue

#endif  // AWC_QUEUE_BACKOFF_H_
