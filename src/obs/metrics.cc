#include "obs/metrics.h"

#include <pthread.h>
#include <sys/mman.h>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

namespace awc::obs {

namespace {

static_assert(std::atomic<uint32_t>::is_always_lock_free,
              "shared-memory metrics need lock-free 32-bit atomics");
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory metrics need lock-free 64-bit atomics");

constexpr int kMaxLabels = 2;

// Upper bounds of the job duration histogram, in seconds; +Inf is implicit.
constexpr double kDurationBounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                      0.5,   1,    2.5,   5,    10,  30,
                                      60,    120,  300,   600};
constexpr int kNumBounds = static_cast<int>(std::size(kDurationBounds));

// See SetSlotAllocationHookForTest. Process-local, not in the region.
void (*g_slot_allocation_hook_for_test)() = nullptr;

}  // namespace

namespace internal {

// Test-only: `hook` runs while a new slot is being allocated, with the
// allocation mutex held and the label values written but not yet published,
// so a test can kill the process at the worst moment. Production code never
// sets it. (Declared again in metrics_test.cc, not in metrics.h.)
void SetSlotAllocationHookForTest(void (*hook)()) {
  g_slot_allocation_hook_for_test = hook;
}

}  // namespace internal

// One label set of one instrument. A slot is immutable once `published` is
// 1, except for its values, which are only ever updated atomically.
struct MetricsSeries {
  std::atomic<uint32_t> published;
  char labels[kMaxLabels][kMaxLabelValue + 1];  // NUL-terminated
  // Counter: the count. Gauge: the double's bits. Histogram: the count.
  std::atomic<uint64_t> value;
  std::atomic<uint64_t> sum_bits;             // histogram: sum of observations
  std::atomic<uint64_t> buckets[kNumBounds];  // histogram, not cumulative
};

struct MetricsFamily {
  pthread_mutex_t alloc_mu;  // process-shared, robust; guards allocation
  MetricsSeries slots[kMaxLabelSets];  // published ones form a prefix
  MetricsSeries overflow;              // published once anything overflowed
};

namespace {

// The labelled instruments come first: each is a family of slots. The others
// are a single series each.
enum Instrument {
  kJobs,
  kLag,
  kDuration,
  kScheduleRuns,
  kScheduleEnqueued,
  kApiErrors,
  kRestarts,
  kRunning,
  kSchedulerLeader,
};
constexpr int kNumFamilies = 5;
constexpr int kNumInstruments = 9;
constexpr Instrument kRenderOrder[] = {kJobs,
                                       kLag,
                                       kApiErrors,
                                       kDuration,
                                       kRestarts,
                                       kRunning,
                                       kSchedulerLeader,
                                       kScheduleRuns,
                                       kScheduleEnqueued};
enum class Type { kCounter, kGauge, kHistogram };

struct Desc {
  const char* name;
  const char* help;
  Type type;
  int num_labels;
  const char* label_names[kMaxLabels];
};

// clang-format off
constexpr Desc kDescs[kNumInstruments] = {
    {"awc_background_jobs_total",
     "Background jobs processed, by kind and outcome.",
     Type::kCounter, 2, {"kind", "outcome"}},
    {"awc_background_job_lag_seconds",
     "Seconds from ready to processed of the last job of each kind.",
     Type::kGauge, 1, {"kind", nullptr}},
    {"awc_background_job_duration_seconds",
     "Handler run time of background jobs, by kind.",
     Type::kHistogram, 1, {"kind", nullptr}},
    {"awc_schedule_runs_total",
     "Schedule firings by the leading scheduler, by schedule and result.",
     Type::kCounter, 2, {"schedule", "result"}},
    {"awc_scheduler_jobs_enqueued_total",
     "Jobs enqueued by schedule firings, by schedule.",
     Type::kCounter, 1, {"schedule", nullptr}},
    {"awc_api_errors_total",
     "Transient store errors during the claim or record step.",
     Type::kCounter, 1, {"component", nullptr}},
    {"awc_worker_restarts_total",
     "Worker processes restarted by the supervisor.",
     Type::kCounter, 0, {nullptr, nullptr}},
    {"awc_workers_running",
     "Worker processes currently running.",
     Type::kGauge, 0, {nullptr, nullptr}},
    {"awc_scheduler_leader",
     "1 while this host's scheduler holds the leader lease, else 0.",
     Type::kGauge, 0, {nullptr, nullptr}},
};
// clang-format on

}  // namespace

struct MetricsRegion {
  MetricsFamily families[kNumFamilies];                   // by Instrument
  MetricsSeries singles[kNumInstruments - kNumFamilies];  // by Instrument

  MetricsSeries& single(Instrument i) { return singles[i - kNumFamilies]; }
};

static_assert(std::is_trivially_destructible_v<MetricsRegion>,
              "the shared region is unmapped, never destroyed");

namespace {

using Labels = std::array<std::string_view, kMaxLabels>;

bool Recordable(const Labels& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (labels[j].size() > kMaxLabelValue) return false;
    if (labels[j].find('\0') != std::string_view::npos) return false;
  }
  return true;
}

bool IsOverflowSet(const Labels& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (labels[j] != kOverflowLabel) return false;
  }
  return true;
}

std::string_view Stored(const MetricsSeries& s, int j) {
  return std::string_view(s.labels[j], strnlen(s.labels[j], kMaxLabelValue));
}

bool Matches(const MetricsSeries& s, const Labels& labels, int n) {
  for (int j = 0; j < n; ++j) {
    if (Stored(s, j) != labels[j]) return false;
  }
  return true;
}

// Lock-free: returns the index of the published slot holding `labels`, or
// -1 and the index of the first unpublished slot (kMaxLabelSets when full).
int Scan(const MetricsFamily& f, const Labels& labels, int n, int* first_free) {
  for (int i = 0; i < kMaxLabelSets; ++i) {
    const MetricsSeries& s = f.slots[i];
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

MetricsSeries* Overflow(MetricsFamily& f) {
  if (f.overflow.published.load(std::memory_order_relaxed) == 0) {
    f.overflow.published.store(1, std::memory_order_release);
  }
  return &f.overflow;
}

// The slot to record `labels` into: its own, a new one, or the overflow.
MetricsSeries* Acquire(MetricsFamily& f, const Labels& labels, int n) {
  if (!Recordable(labels, n) || IsOverflowSet(labels, n)) return Overflow(f);
  int free_slot = 0;
  int i = Scan(f, labels, n, &free_slot);
  if (i >= 0) return &f.slots[i];
  if (free_slot == kMaxLabelSets) return Overflow(f);
  if (!LockRobust(&f.alloc_mu)) return Overflow(f);
  i = Scan(f, labels, n, &free_slot);
  if (i < 0 && free_slot < kMaxLabelSets) {
    i = free_slot;
    MetricsSeries& s = f.slots[i];
    memset(s.labels, 0, sizeof s.labels);
    for (int j = 0; j < n; ++j) {
      memcpy(s.labels[j], labels[j].data(), labels[j].size());
    }
    if (g_slot_allocation_hook_for_test != nullptr) {
      g_slot_allocation_hook_for_test();
    }
    s.published.store(1, std::memory_order_release);
  }
  pthread_mutex_unlock(&f.alloc_mu);
  return i >= 0 ? &f.slots[i] : Overflow(f);
}

// The slot holding `labels` for reading, or nullptr if never recorded.
const MetricsSeries* Find(const MetricsFamily& f, const Labels& labels, int n) {
  if (IsOverflowSet(labels, n)) {
    return f.overflow.published.load(std::memory_order_acquire) != 0
               ? &f.overflow
               : nullptr;
  }
  if (!Recordable(labels, n)) return nullptr;
  int free_slot = 0;
  int i = Scan(f, labels, n, &free_slot);
  return i >= 0 ? &f.slots[i] : nullptr;
}

double DoubleFromBits(uint64_t bits) { return std::bit_cast<double>(bits); }
uint64_t BitsFromDouble(double d) { return std::bit_cast<uint64_t>(d); }

void AddDouble(std::atomic<uint64_t>& bits, double d) {
  uint64_t old = bits.load(std::memory_order_relaxed);
  while (!bits.compare_exchange_weak(old,
                                     BitsFromDouble(DoubleFromBits(old) + d))) {
  }
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "NaN";
  return std::string(buf, end);
}

void AppendEscaped(std::string* out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '"') {
      *out += "\\\"";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      *out += c;
    }
  }
}

void AppendHeader(std::string* out, const Desc& desc) {
  const char* type = desc.type == Type::kCounter ? "counter"
                     : desc.type == Type::kGauge ? "gauge"
                                                 : "histogram";
  *out += std::string("# HELP ") + desc.name + " " + desc.help + "\n";
  *out += std::string("# TYPE ") + desc.name + " " + type + "\n";
}

// Appends `name{labels[,le="..."]} value\n`; no braces when there are no
// labels at all.
void AppendSample(std::string* out, std::string_view name, const Desc& desc,
                  const Labels& labels, const char* le,
                  std::string_view value) {
  *out += name;
  if (desc.num_labels > 0 || le != nullptr) {
    *out += '{';
    for (int j = 0; j < desc.num_labels; ++j) {
      if (j > 0) *out += ',';
      *out += desc.label_names[j];
      *out += "=\"";
      AppendEscaped(out, labels[j]);
      *out += '"';
    }
    if (le != nullptr) {
      if (desc.num_labels > 0) *out += ',';
      *out += "le=\"";
      *out += le;
      *out += '"';
    }
    *out += '}';
  }
  *out += ' ';
  *out += value;
  *out += '\n';
}

void AppendSeries(std::string* out, const Desc& desc, const Labels& labels,
                  const MetricsSeries& s) {
  switch (desc.type) {
    case Type::kCounter:
      AppendSample(out, desc.name, desc, labels, nullptr,
                   std::to_string(s.value.load()));
      return;
    case Type::kGauge:
      AppendSample(out, desc.name, desc, labels, nullptr,
                   FormatDouble(DoubleFromBits(s.value.load())));
      return;
    case Type::kHistogram: {
      // Buckets are read before the count, and written after it, so the
      // cumulative buckets never exceed the +Inf bucket.
      std::string bucket = std::string(desc.name) + "_bucket";
      uint64_t cumulative = 0;
      for (int b = 0; b < kNumBounds; ++b) {
        cumulative += s.buckets[b].load();
        AppendSample(out, bucket, desc, labels,
                     FormatDouble(kDurationBounds[b]).c_str(),
                     std::to_string(cumulative));
      }
      std::string count = std::to_string(s.value.load());
      AppendSample(out, bucket, desc, labels, "+Inf", count);
      AppendSample(out, std::string(desc.name) + "_sum", desc, labels, nullptr,
                   FormatDouble(DoubleFromBits(s.sum_bits.load())));
      AppendSample(out, std::string(desc.name) + "_count", desc, labels,
                   nullptr, count);
      return;
    }
  }
}

void AppendFamily(std::string* out, const Desc& desc, const MetricsFamily& f) {
  for (const MetricsSeries& s : f.slots) {
    if (s.published.load(std::memory_order_acquire) == 0) break;
    Labels labels;
    for (int j = 0; j < desc.num_labels; ++j) labels[j] = Stored(s, j);
    AppendSeries(out, desc, labels, s);
  }
  if (f.overflow.published.load(std::memory_order_acquire) != 0) {
    Labels labels;
    labels.fill(kOverflowLabel);
    AppendSeries(out, desc, labels, f.overflow);
  }
}

}  // namespace

Result<Metrics> Metrics::CreateShared() {
  void* mem = mmap(nullptr, sizeof(MetricsRegion), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return Status::IoError(std::string("cannot map metrics region: ") +
                           strerror(errno));
  }
  auto* region = new (mem) MetricsRegion();
  pthread_mutexattr_t attr;
  int rc = pthread_mutexattr_init(&attr);
  if (rc == 0) rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  if (rc == 0) rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  for (int i = 0; rc == 0 && i < kNumFamilies; ++i) {
    rc = pthread_mutex_init(&region->families[i].alloc_mu, &attr);
  }
  pthread_mutexattr_destroy(&attr);
  if (rc != 0) {
    munmap(mem, sizeof(MetricsRegion));
    return Status::Internal(
        std::string("cannot set up the metrics allocation mutex: ") +
        strerror(rc));
  }
  return Metrics(region);
}

Metrics::~Metrics() {
  if (region_ != nullptr) munmap(region_, sizeof(MetricsRegion));
}

Metrics::Metrics(Metrics&& other) noexcept
    : region_(std::exchange(other.region_, nullptr)) {}

void Metrics::CountJob(std::string_view kind, std::string_view outcome) {
  if (region_ == nullptr) return;
  Acquire(region_->families[kJobs], {kind, outcome}, 2)->value.fetch_add(1);
}

void Metrics::SetJobLag(std::string_view kind, double seconds) {
  if (region_ == nullptr) return;
  Acquire(region_->families[kLag], {kind, {}}, 1)
      ->value.store(BitsFromDouble(seconds));
}

void Metrics::ObserveJobDuration(std::string_view kind, double seconds) {
  if (region_ == nullptr || std::isnan(seconds)) return;
  MetricsSeries* s = Acquire(region_->families[kDuration], {kind, {}}, 1);
  s->value.fetch_add(1);  // before the bucket; see AppendSeries
  int b = 0;
  while (b < kNumBounds && seconds > kDurationBounds[b]) ++b;
  if (b < kNumBounds) s->buckets[b].fetch_add(1);
  AddDouble(s->sum_bits, seconds);
}

void Metrics::CountApiError() {
  if (region_ != nullptr) region_->single(kApiErrors).value.fetch_add(1);
}

void Metrics::CountRestart() {
  if (region_ != nullptr) region_->single(kRestarts).value.fetch_add(1);
}

void Metrics::SetWorkersRunning(int n) {
  if (region_ == nullptr) return;
  region_->single(kRunning).value.store(BitsFromDouble(static_cast<double>(n)));
}

void Metrics::CountScheduleRun(std::string_view schedule,
                               std::string_view result) {
  if (region_ == nullptr) return;
  Acquire(region_->families[kScheduleRuns], {schedule, result}, 2)
      ->value.fetch_add(1);
}

void Metrics::CountScheduleEnqueued(std::string_view schedule, int64_t n) {
  if (region_ == nullptr || n < 0) return;
  Acquire(region_->families[kScheduleEnqueued], {schedule, {}}, 1)
      ->value.fetch_add(static_cast<uint64_t>(n));
}

void Metrics::SetSchedulerLeader(bool leader) {
  if (region_ == nullptr) return;
  region_->single(kSchedulerLeader)
      .value.store(BitsFromDouble(leader ? 1.0 : 0.0));
}

std::string Metrics::RenderPrometheus() const {
  if (region_ == nullptr) return "";
  std::string out;
  for (Instrument i : kRenderOrder) {
    AppendHeader(&out, kDescs[i]);
    if (i < kNumFamilies) {
      AppendFamily(&out, kDescs[i], region_->families[i]);
    } else {
      // The one labelled single series is {component="worker"}.
      AppendSeries(&out, kDescs[i], {"worker", {}}, region_->single(i));
    }
  }
  return out;
}

double Metrics::JobCount(std::string_view kind,
                         std::string_view outcome) const {
  if (region_ == nullptr) return 0;
  const MetricsSeries* s = Find(region_->families[kJobs], {kind, outcome}, 2);
  return s != nullptr ? static_cast<double>(s->value.load()) : 0;
}

double Metrics::JobLag(std::string_view kind) const {
  if (region_ == nullptr) return 0;
  const MetricsSeries* s = Find(region_->families[kLag], {kind, {}}, 1);
  return s != nullptr ? DoubleFromBits(s->value.load()) : 0;
}

double Metrics::ScheduleRuns(std::string_view schedule,
                             std::string_view result) const {
  if (region_ == nullptr) return 0;
  const MetricsSeries* s =
      Find(region_->families[kScheduleRuns], {schedule, result}, 2);
  return s != nullptr ? static_cast<double>(s->value.load()) : 0;
}

double Metrics::ScheduleEnqueued(std::string_view schedule) const {
  if (region_ == nullptr) return 0;
  const MetricsSeries* s =
      Find(region_->families[kScheduleEnqueued], {schedule, {}}, 1);
  return s != nullptr ? static_cast<double>(s->value.load()) : 0;
}

bool Metrics::SchedulerLeader() const {
  if (region_ == nullptr) return false;
  return DoubleFromBits(region_->single(kSchedulerLeader).value.load()) > 0;
}

double Metrics::ApiErrors() const {
  if (region_ == nullptr) return 0;
  return static_cast<double>(region_->single(kApiErrors).value.load());
}

double Metrics::TotalJobs() const {
  if (region_ == nullptr) return 0;
  const MetricsFamily& f = region_->families[kJobs];
  uint64_t total = f.overflow.value.load();
  for (const MetricsSeries& s : f.slots) {
    if (s.published.load(std::memory_order_acquire) == 0) break;
    total += s.value.load();
  }
  return static_cast<double>(total);
}

}  // namespace awc::obs
