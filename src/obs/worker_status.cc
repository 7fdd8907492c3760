#include "obs/worker_status.h"

#include <sched.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace awc::obs {

static_assert(std::atomic<int64_t>::is_always_lock_free,
              "shared-memory status needs lock-free 64-bit atomics");

const char* WorkerPhaseName(WorkerPhase phase) {
  switch (phase) {
    case WorkerPhase::kDown:
      return "down";
    case WorkerPhase::kConnecting:
      return "connecting";
    case WorkerPhase::kIdle:
      return "idle";
    case WorkerPhase::kBusy:
      return "busy";
    case WorkerPhase::kStopping:
      return "stopping";
  }
  return "?";
}

void WorkerStatusTable::OrphanJob(int n) {
  WorkerSlotStatus& s = table_[n];
  int64_t job = s.job_id.exchange(0, std::memory_order_relaxed);
  if (job == 0) return;
  s.orphan_token.store(s.lease_token.load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
  // Published after its token: a taker that sees the id sees the token.
  if (s.orphan_job_id.exchange(job, std::memory_order_acq_rel) == 0) {
    header_->orphans.fetch_add(1, std::memory_order_release);
  }
}

std::optional<OrphanedJob> WorkerStatusTable::TakeOrphan(int n) {
  WorkerSlotStatus& s = table_[n];
  if (s.orphan_job_id.load(std::memory_order_relaxed) == 0) return std::nullopt;
  int64_t job = s.orphan_job_id.exchange(0, std::memory_order_acquire);
  if (job == 0) return std::nullopt;
  header_->orphans.fetch_sub(1, std::memory_order_relaxed);
  // A token overwritten by a newer orphan meanwhile only makes the fenced
  // hand-back of this one match nothing: its lease still ends it.
  return OrphanedJob{job, s.orphan_token.load(std::memory_order_relaxed), n};
}

void WorkerStatusTable::PutBackOrphan(const OrphanedJob& orphan) {
  WorkerSlotStatus& s = table_[orphan.slot];
  int64_t none = 0;
  if (s.orphan_job_id.load(std::memory_order_relaxed) != 0) return;
  s.orphan_token.store(orphan.lease_token, std::memory_order_relaxed);
  if (s.orphan_job_id.compare_exchange_strong(none, orphan.job_id,
                                              std::memory_order_release)) {
    header_->orphans.fetch_add(1, std::memory_order_release);
  }
}

bool WorkerStatusTable::TakeBackgroundPlace(int n) {
  WorkerSlotStatus& me = table_[n];
  if (me.background_place.load(std::memory_order_relaxed)) return true;
  // A few instructions are run under the lock; a taker that finds it taken
  // for this many tries met a taker that died there.
  constexpr int kTries = 10000;
  int free = 0;
  int tries = 0;
  while (!header_->admission_lock.compare_exchange_weak(
      free, n + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
    free = 0;
    if (++tries == kTries) return false;
    sched_yield();
  }
  bool took = BackgroundPlacesInUse() < BackgroundLimit();
  if (took) {
    if (header_->place_slots.load(std::memory_order_relaxed) <= n) {
      header_->place_slots.store(n + 1, std::memory_order_relaxed);
    }
    me.background_place.store(true, std::memory_order_relaxed);
  }
  header_->admission_lock.store(0, std::memory_order_release);
  return took;
}

void WorkerStatusTable::ReleaseBackgroundPlace(int n) {
  table_[n].background_place.store(false, std::memory_order_relaxed);
  int mine = n + 1;
  header_->admission_lock.compare_exchange_strong(mine, 0,
                                                  std::memory_order_release);
}

int WorkerStatusTable::BackgroundPlacesInUse() const {
  int held = 0;
  int used = header_->place_slots.load(std::memory_order_relaxed);
  for (int n = 0; n < used; ++n) {
    held += table_[n].background_place.load(std::memory_order_relaxed) ? 1 : 0;
  }
  return held;
}

size_t WorkerStatusTable::Bytes(int slots) {
  return sizeof(Header) + sizeof(WorkerSlotStatus) * static_cast<size_t>(slots);
}

Result<WorkerStatusTable> WorkerStatusTable::CreateShared(int slots) {
  void* mem = mmap(nullptr, Bytes(slots), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return Status::IoError(std::string("cannot map worker status table: ") +
                           strerror(errno));
  }
  auto* header = new (mem) Header{};
  header->background_limit.store(slots, std::memory_order_relaxed);
  auto* table = reinterpret_cast<WorkerSlotStatus*>(header + 1);
  for (int n = 0; n < slots; ++n) new (&table[n]) WorkerSlotStatus{};
  return WorkerStatusTable(header, slots);
}

WorkerStatusTable::~WorkerStatusTable() {
  if (header_ != nullptr) munmap(header_, Bytes(slots_));
}

WorkerStatusTable::WorkerStatusTable(WorkerStatusTable&& other) noexcept
    : header_(other.header_), table_(other.table_), slots_(other.slots_) {
  other.header_ = nullptr;
  other.table_ = nullptr;
  other.slots_ = 0;
}

int WorkerStatusTable::Count(WorkerPhase phase) const {
  int n = 0;
  for (int i = 0; i < slots_; ++i) n += Phase(i) == phase ? 1 : 0;
  return n;
}

int WorkerStatusTable::Connected() const {
  int n = 0;
  for (int i = 0; i < slots_; ++i) {
    WorkerPhase p = Phase(i);
    bool up = p == WorkerPhase::kIdle || p == WorkerPhase::kBusy;
    n += (up && table_[i].db_ok.load(std::memory_order_relaxed)) ? 1 : 0;
  }
  return n;
}

int WorkerStatusTable::ReadOnly() const {
  int n = 0;
  for (int i = 0; i < slots_; ++i) {
    bool runs = Phase(i) != WorkerPhase::kDown;
    n += (runs && table_[i].db_read_only.load(std::memory_order_relaxed)) ? 1
                                                                          : 0;
  }
  return n;
}

int64_t WorkerStatusTable::JobsDone() const {
  int64_t n = 0;
  for (int i = 0; i < slots_; ++i) {
    n += table_[i].jobs_done.load(std::memory_order_relaxed);
  }
  return n;
}

}  // namespace awc::obs
