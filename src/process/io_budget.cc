#include "process/io_budget.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace awc::process {
namespace {

constexpr double kNs = 1e9;

// Moves `free_ns` on by `amount / rate` from max(it, now); the wait until
// the old value, in seconds.
double Take(std::atomic<int64_t>& free_ns, double rate, double amount,
            int64_t now_ns) {
  if (rate <= 0 || amount <= 0) return 0;
  int64_t cost = static_cast<int64_t>(amount / rate * kNs);
  int64_t old = free_ns.load(std::memory_order_relaxed);
  for (;;) {
    int64_t start = std::max(old, now_ns);
    if (free_ns.compare_exchange_weak(old, start + cost,
                                      std::memory_order_relaxed)) {
      return static_cast<double>(start - now_ns) / kNs;
    }
  }
}

}  // namespace

Result<IoBudget> IoBudget::CreateShared() {
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return Status::IoError(std::string("cannot map the I/O budget: ") +
                           strerror(errno));
  }
  return IoBudget(new (mem) Shared{});
}

IoBudget::~IoBudget() {
  if (shared_ != nullptr) munmap(shared_, sizeof(Shared));
}

IoBudget::IoBudget(IoBudget&& other) noexcept : shared_(other.shared_) {
  other.shared_ = nullptr;
}

double IoBudget::Reserve(const IoRates& rates, uint64_t bytes, uint64_t objects,
                         double now) {
  int64_t now_ns = static_cast<int64_t>(now * kNs);
  double a = Take(shared_->bytes_free_ns, rates.bytes_per_sec,
                  static_cast<double>(bytes), now_ns);
  double b = Take(shared_->objects_free_ns, rates.objects_per_sec,
                  static_cast<double>(objects), now_ns);
  return std::max(a, b);
}

Status PaceReads(IoBudget& budget, const IoRates& rates, uint64_t bytes,
                 uint64_t objects, Env& env,
                 const std::function<Status()>& between) {
  if (!rates.limited()) return Status::OK();
  double wait = budget.Reserve(rates, bytes, objects, env.NowMonotonic());
  while (wait > 0) {
    double slice = std::min(wait, 1.0);
    env.SleepFor(slice);
    wait -= slice;
    if (between) AWC_RETURN_IF_ERROR(between());
  }
  return Status::OK();
}

}  // namespace awc::process
