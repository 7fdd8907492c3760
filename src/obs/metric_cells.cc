#include "obs/metric_cells.h"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace awc::obs {
namespace {

double DoubleFromBits(uint64_t bits) { return std::bit_cast<double>(bits); }
uint64_t BitsFromDouble(double d) { return std::bit_cast<uint64_t>(d); }

bool Recordable(const LabelValues& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (labels[j].size() > kMaxLabelValue) return false;
    if (labels[j].find('\0') != std::string_view::npos) return false;
  }
  return true;
}

bool IsOverflowSet(const LabelValues& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (labels[j] != kOverflowLabel) return false;
  }
  return true;
}

bool Matches(const FamilySeries& s, const LabelValues& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (s.label(j) != labels[j]) return false;
  }
  return true;
}

// Lock-free: the index of the published slot holding `labels`, or -1 and
// the index of the first unpublished slot (kMaxLabelSets when full).
int Scan(const Family& f, const LabelValues& labels, int n, int* first_free) {
  for (int i = 0; i < kMaxLabelSets; ++i) {
    const FamilySeries& s = f.slots[i];
    if (s.published.load(std::memory_order_acquire) == 0) {
      *first_free = i;
      return -1;
    }
    if (Matches(s, labels, n)) return i;
  }
  *first_free = kMaxLabelSets;
  return -1;
}

// Takes a robust mutex; a previous owner that died leaves it consistent
// again (the half-written slot it may have left is unpublished, hence free).
bool LockRobust(pthread_mutex_t* mu) {
  int rc = pthread_mutex_lock(mu);
  if (rc == EOWNERDEAD) rc = pthread_mutex_consistent(mu);
  return rc == 0;
}

FamilySeries* Overflow(Family& f) {
  if (f.overflow.published.load(std::memory_order_relaxed) == 0) {
    f.overflow.published.store(1, std::memory_order_release);
  }
  return &f.overflow;
}

}  // namespace

namespace internal {

void (*g_slot_allocation_hook_for_test)() = nullptr;

}  // namespace internal

void AddDouble(std::atomic<uint64_t>& bits, double d) {
  uint64_t old = bits.load(std::memory_order_relaxed);
  while (!bits.compare_exchange_weak(old,
                                     BitsFromDouble(DoubleFromBits(old) + d))) {
  }
}

void GaugeCell::Set(double v) {
  bits.store(BitsFromDouble(v), std::memory_order_relaxed);
}

double GaugeCell::Get() const {
  return DoubleFromBits(bits.load(std::memory_order_relaxed));
}

void HistogramCell::Observe(std::span<const double> bounds, double v) {
  if (std::isnan(v)) return;
  count.fetch_add(1);  // before the bucket; see Render
  size_t b = 0;
  while (b < bounds.size() && v > bounds[b]) ++b;
  if (b < bounds.size()) buckets[b].fetch_add(1);
  AddDouble(sum_bits, v);
}

void HistogramCell::Render(PromText* out, std::string_view name,
                           std::span<const Label> labels,
                           std::span<const double> bounds) const {
  uint64_t counts[kMaxBuckets] = {};
  size_t n = std::min(bounds.size(), static_cast<size_t>(kMaxBuckets));
  for (size_t b = 0; b < n; ++b) counts[b] = buckets[b].load();
  uint64_t total = count.load();
  out->Histogram(name, labels, bounds.first(n), std::span(counts, n),
                 DoubleFromBits(sum_bits.load()), total);
}

void RenderSeries(PromText* out, const MetricFamily& d,
                  const LabelValues& values, const SeriesCells& series) {
  int n = NumLabels(d);
  Label labels[kMaxFamilyLabels];
  for (int j = 0; j < n; ++j) labels[j] = {d.labels[j], values[j]};
  std::span<const Label> set(labels, static_cast<size_t>(n));
  switch (d.type) {
    case MetricType::kCounter:
      out->Sample(d.name, set, series.counter.Get());
      return;
    case MetricType::kGauge:
      out->Sample(d.name, set, series.gauge.Get());
      return;
    case MetricType::kHistogram:
      series.histogram.Render(out, d.name, set, d.bounds);
      return;
  }
}

void RenderFamily(PromText* out, const MetricFamily& d, const Family& f) {
  f.ForEach(NumLabels(d),
            [&](const LabelValues& values, const FamilySeries& s) {
              RenderSeries(out, d, values, s);
            });
}

std::string_view FamilySeries::label(int j) const {
  return std::string_view(labels[j], strnlen(labels[j], kMaxLabelValue));
}

int Family::Init() {
  pthread_mutexattr_t attr;
  int rc = pthread_mutexattr_init(&attr);
  if (rc != 0) return rc;
  rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  if (rc == 0) rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  if (rc == 0) rc = pthread_mutex_init(&alloc_mu, &attr);
  pthread_mutexattr_destroy(&attr);
  return rc;
}

FamilySeries* Family::Acquire(const LabelValues& labels, int n) {
  if (!Recordable(labels, n) || IsOverflowSet(labels, n)) {
    return Overflow(*this);
  }
  int free_slot = 0;
  int i = Scan(*this, labels, n, &free_slot);
  if (i >= 0) return &slots[i];
  if (free_slot == kMaxLabelSets) return Overflow(*this);
  if (!LockRobust(&alloc_mu)) return Overflow(*this);
  i = Scan(*this, labels, n, &free_slot);
  if (i < 0 && free_slot < kMaxLabelSets) {
    i = free_slot;
    FamilySeries& s = slots[i];
    memset(s.labels, 0, sizeof s.labels);
    for (int j = 0; j < n; ++j) {
      memcpy(s.labels[j], labels[j].data(), labels[j].size());
    }
    if (internal::g_slot_allocation_hook_for_test != nullptr) {
      internal::g_slot_allocation_hook_for_test();
    }
    s.published.store(1, std::memory_order_release);
  }
  pthread_mutex_unlock(&alloc_mu);
  return i >= 0 ? &slots[i] : Overflow(*this);
}

const FamilySeries* Family::Find(const LabelValues& labels, int n) const {
  if (IsOverflowSet(labels, n)) {
    return overflow.published.load(std::memory_order_acquire) != 0 ? &overflow
                                                                   : nullptr;
  }
  if (!Recordable(labels, n)) return nullptr;
  int free_slot = 0;
  int i = Scan(*this, labels, n, &free_slot);
  return i >= 0 ? &slots[i] : nullptr;
}

}  // namespace awc::obs
