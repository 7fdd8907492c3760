// The building blocks of the shared metrics region (metrics.h): counters,
// gauges, histograms, and families of label sets. Private to obs/.
//
// Contract:
//  - Every type here is a plain struct of lock-free atomics (and, in a
//    Family, one process-shared mutex) holding no pointers, valid when
//    zeroed, so it can live in memory shared by processes forked after it
//    was mapped.
//  - Cells are updated with atomic operations only and never lock.
//  - A Family holds up to kMaxLabelSets label sets of up to kMaxFamilyLabels
//    (metric_families.h) values each, for labels whose values are known only at
//    run time (job kinds, schedules). Finding the slot of a known label set is
//    lock-free; allocating a new one takes the family's robust mutex (a process
//    that dies holding it cannot wedge the others). A label set past the cap,
//    holding a value longer than kMaxLabelValue bytes or a NUL byte, or
//    made of kOverflowLabel only, is recorded in the family's overflow
//    series, rendered with every label "cardinality_overflow".
#ifndef AWC_OBS_METRIC_CELLS_H_
#define AWC_OBS_METRIC_CELLS_H_

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "obs/metric_families.h"
#include "obs/metrics.h"
#include "obs/prom_text.h"

namespace awc::obs {

inline constexpr int kMaxBuckets = 16;
static_assert(std::size(kJobDurationBounds) <= kMaxBuckets &&
              std::size(kStoreRequestBounds) <= kMaxBuckets);

static_assert(std::atomic<uint32_t>::is_always_lock_free,
              "shared-memory metrics need lock-free 32-bit atomics");
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory metrics need lock-free 64-bit atomics");

struct CounterCell {
  std::atomic<uint64_t> value;

  void Add(uint64_t n) { value.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Get() const { return value.load(std::memory_order_relaxed); }
};

// A double, stored as its bits.
struct GaugeCell {
  std::atomic<uint64_t> bits;

  void Set(double v);
  double Get() const;
};

// Observations against up to kMaxBuckets upper bounds (+Inf implicit),
// which the caller passes both when observing and when rendering.
struct HistogramCell {
  std::atomic<uint64_t> count;
  std::atomic<uint64_t> sum_bits;
  std::atomic<uint64_t> buckets[kMaxBuckets];  // not cumulative

  // Ignores NaN. The count is added before the bucket, and Render reads
  // the buckets before the count, so no bucket ever shows more than +Inf.
  void Observe(std::span<const double> bounds, double v);
  void Render(PromText* out, std::string_view name,
              std::span<const Label> labels,
              std::span<const double> bounds) const;
  uint64_t Count() const { return count.load(std::memory_order_relaxed); }
};

// The cells of one series; a family's type says which one it uses.
struct SeriesCells {
  CounterCell counter;
  GaugeCell gauge;
  HistogramCell histogram;
};

// One label set of a Family. Immutable once `published` is 1, but for its
// cells.
struct FamilySeries : SeriesCells {
  std::atomic<uint32_t> published;
  char labels[kMaxFamilyLabels][kMaxLabelValue + 1];  // NUL-terminated

  std::string_view label(int j) const;
};

struct Family {
  pthread_mutex_t alloc_mu;  // process-shared, robust; guards allocation
  FamilySeries slots[kMaxLabelSets];  // the published ones form a prefix
  FamilySeries overflow;              // published once anything overflowed

  // Sets up the mutex; call once, in the process that maps the region.
  // Returns 0 or an errno value.
  int Init();
  // The series to record the first `n` of `labels` into: its own, a new
  // one, or the overflow.
  FamilySeries* Acquire(const LabelValues& labels, int n);
  // The series holding the label set, or nullptr if it was never recorded
  // (pass kOverflowLabel for every label to read the overflow).
  const FamilySeries* Find(const LabelValues& labels, int n) const;

  // Calls f(labels, series) for each published series, the overflow last.
  template <typename F>
  void ForEach(int n, F&& f) const {
    for (const FamilySeries& s : slots) {
      if (s.published.load(std::memory_order_acquire) == 0) break;
      LabelValues labels;
      for (int j = 0; j < n; ++j) labels[j] = s.label(j);
      f(labels, s);
    }
    if (overflow.published.load(std::memory_order_acquire) != 0) {
      LabelValues labels;
      labels.fill(kOverflowLabel);
      f(labels, overflow);
    }
  }
};

// Writes the samples of one series of `desc` with these label values.
void RenderSeries(PromText* out, const MetricFamily& desc,
                  const LabelValues& values, const SeriesCells& series);

// Writes every published series of `family`, as `desc` says (not its HELP
// and TYPE).
void RenderFamily(PromText* out, const MetricFamily& desc,
                  const Family& family);

namespace internal {

// The seam of metrics_testing.h (SetSlotAllocationHookForTest): runs, when
// set, while a new slot is being allocated. Process-local, not in the
// region; production code never sets it.
extern void (*g_slot_allocation_hook_for_test)();

}  // namespace internal

// Adds `d` to the double whose bits are in `bits`.
void AddDouble(std::atomic<uint64_t>& bits, double d);

}  // namespace awc::obs

#endif  // AWC_OBS_METRIC_CELLS_H_
