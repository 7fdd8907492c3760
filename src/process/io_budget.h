// IoBudget: the pace of one host's maintenance reads — scrub, inventory
// reconciliation, repair — shared by the worker processes of a tree, so
// that maintenance never starves production reads (docs/store.md, "The
// scrub budget").
//
// A page of shared memory, mapped by the master before fork, holds for each
// dimension (bytes, objects) the instant the budget is next free, on
// CLOCK_MONOTONIC (one clock for every process of the host). Reserve()
// moves that instant forward by what the caller is about to read divided by
// the rate, with one compare-and-swap, and returns how long the caller must
// wait before it reads. Idle time earns no credit, so the reads of a host
// never run ahead of the rate by more than one reservation; over any
// stretch of reservations they run at the rate at most.
#ifndef AWC_PROCESS_IO_BUDGET_H_
#define AWC_PROCESS_IO_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/env.h"
#include "common/status.h"

namespace awc::process {

// Rates of a budget; 0: no limit in that dimension.
struct IoRates {
  double bytes_per_sec = 0;
  double objects_per_sec = 0;
  bool limited() const { return bytes_per_sec > 0 || objects_per_sec > 0; }
};

class IoBudget {
 public:
  // A zeroed shared page.
  static Result<IoBudget> CreateShared();
  ~IoBudget();
  IoBudget(IoBudget&& other) noexcept;
  IoBudget& operator=(IoBudget&&) = delete;
  IoBudget(const IoBudget&) = delete;
  IoBudget& operator=(const IoBudget&) = delete;

  // Reserves `bytes` in `objects` reads at `rates`, at monotonic time
  // `now` (seconds); returns the seconds to wait before reading them (0
  // when the budget is free, or unlimited).
  double Reserve(const IoRates& rates, uint64_t bytes, uint64_t objects,
                 double now);

 private:
  struct alignas(64) Shared {
    std::atomic<int64_t> bytes_free_ns;    // when the byte budget is free
    std::atomic<int64_t> objects_free_ns;  // when the object budget is
  };
  explicit IoBudget(Shared* shared) : shared_(shared) {}
  Shared* shared_;
};

// Reserves `bytes` in `objects` reads of `budget` at `rates` and waits the
// reservation out on `env`'s clock, in slices of at most a second with
// `between` called after each (a job renews its lease there); an error of
// `between` ends the wait with it.
Status PaceReads(IoBudget& budget, const IoRates& rates, uint64_t bytes,
                 uint64_t objects, Env& env,
                 const std::function<Status()>& between);

}  // namespace awc::process

#endif  // AWC_PROCESS_IO_BUDGET_H_
