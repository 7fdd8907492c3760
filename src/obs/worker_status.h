// WorkerStatusTable: what each worker process tells the parent, through a
// small region of shared memory mapped before fork().
//
// Each child writes only its own slot, with relaxed atomics; the parent
// reads all slots for /readyz, the sd_notify STATUS= line and metrics. A
// slot whose child died keeps its last values until the parent resets it.
//
// Orphans: when a worker dies with a job in flight, the parent moves that
// job (id and lease token) to its slot's orphan; any live worker may take
// it (TakeOrphan, one taker) and hand it back to the queue, fenced on the
// token (docs/queue.md, "A worker that dies"). One orphan per slot: a
// second death before the first was taken leaves the first to its lease.
//
// Background places: at most BackgroundLimit() of the host's workers run a
// background kind (scrub, reconciliation, GC) at once, so that what users
// wait for always finds a worker (docs/queue.md, "Background work"). A
// worker takes a place before a claim that may return a background job
// and gives it back once it runs something else; the parent gives back the
// place of a worker that exited. Taking one is serialized by a lock word
// holding the taker's slot, which the parent also frees for a dead taker.
#ifndef AWC_OBS_WORKER_STATUS_H_
#define AWC_OBS_WORKER_STATUS_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "common/status.h"

namespace awc::obs {

enum class WorkerPhase : int {
  kDown = 0,    // no process in the slot
  kConnecting,  // started, no database session yet
  kIdle,        // connected, waiting for a job
  kBusy,        // running a job
  kStopping,    // asked to stop; finishing its job
};

const char* WorkerPhaseName(WorkerPhase phase);

struct WorkerSlotStatus {
  std::atomic<int> phase;
  std::atomic<bool> db_ok;  // last database round trip succeeded
  // Its session, or its last attempt at one, could not write: a standby,
  // or default_transaction_read_only (docs/operations.md, "Read-only
  // sessions"). Cleared once it has a session that can.
  std::atomic<bool> db_read_only;
  std::atomic<int64_t> job_id;       // the job in flight, 0 when idle
  std::atomic<int64_t> lease_token;  // its claim's fencing token
  std::atomic<int64_t> jobs_done;
  std::atomic<int64_t> orphan_job_id;  // a dead worker's job; 0: none
  std::atomic<int64_t> orphan_token;
  std::atomic<bool> background_place;  // holds one of the host's places
};

// A job whose worker died while running it.
struct OrphanedJob {
  int64_t job_id = 0;
  int64_t lease_token = 0;
  int slot = 0;  // 0-based: the slot of the worker that died
};

class WorkerStatusTable {
 public:
  // Maps a zeroed shared region for `slots` workers.
  static Result<WorkerStatusTable> CreateShared(int slots);
  ~WorkerStatusTable();
  WorkerStatusTable(WorkerStatusTable&& other) noexcept;
  WorkerStatusTable& operator=(WorkerStatusTable&&) = delete;
  WorkerStatusTable(const WorkerStatusTable&) = delete;
  WorkerStatusTable& operator=(const WorkerStatusTable&) = delete;

  int size() const { return slots_; }
  WorkerSlotStatus& slot(int n) { return table_[n]; }
  const WorkerSlotStatus& slot(int n) const { return table_[n]; }

  void SetPhase(int n, WorkerPhase phase) {
    table_[n].phase.store(static_cast<int>(phase), std::memory_order_relaxed);
  }
  WorkerPhase Phase(int n) const {
    return static_cast<WorkerPhase>(
        table_[n].phase.load(std::memory_order_relaxed));
  }
  // The job in flight of slot `n`'s worker (0, 0 when none).
  void SetJob(int n, int64_t job_id, int64_t lease_token) {
    table_[n].lease_token.store(lease_token, std::memory_order_relaxed);
    table_[n].job_id.store(job_id, std::memory_order_relaxed);
  }
  // The parent, when slot `n`'s worker has exited: its job in flight, if
  // any, becomes the slot's orphan; the slot's job is cleared.
  void OrphanJob(int n);
  // Takes the orphan of slot `n`, at most one caller gets it.
  std::optional<OrphanedJob> TakeOrphan(int n);
  // Whether some slot may have an orphan: one load of a line of its own,
  // so that the workers, which ask before every claim, do not read every
  // slot (each written by its own worker) when none has.
  bool HasOrphans() const {
    return header_->orphans.load(std::memory_order_acquire) > 0;
  }
  // Puts back an orphan that could not be handed back (a database error),
  // unless the slot has a newer one.
  void PutBackOrphan(const OrphanedJob& orphan);

  // The parent, before it starts a generation's workers: how many may run
  // a background kind at once (at least 1).
  void SetBackgroundLimit(int limit) {
    header_->background_limit.store(limit, std::memory_order_relaxed);
  }
  int BackgroundLimit() const {
    return header_->background_limit.load(std::memory_order_relaxed);
  }
  // Slot `n`'s worker keeps its place, or takes a free one: true when it
  // holds one. False too when the lock stays taken (a taker that died
  // there, until the parent frees it): the claim then leaves background
  // kinds alone, which is always safe.
  bool TakeBackgroundPlace(int n);
  // Slot `n` gives its place back, if it holds one; the parent's call for
  // an exited worker also frees the lock if that worker died holding it.
  void ReleaseBackgroundPlace(int n);
  // Places held.
  int BackgroundPlacesInUse() const;
  // Tests: slot `n` takes the lock and keeps it, as a taker that died
  // there would.
  bool HoldAdmissionLockForTesting(int n) {
    int free = 0;
    return header_->admission_lock.compare_exchange_strong(free, n + 1);
  }

  // Counts slots in `phase`.
  int Count(WorkerPhase phase) const;
  // Slots whose worker is up and whose last database round trip worked.
  int Connected() const;
  // Slots whose worker runs and found its database session read-only.
  int ReadOnly() const;
  int64_t JobsDone() const;

 private:
  // The region's first cache line, before the slots.
  struct alignas(64) Header {
    std::atomic<int64_t> orphans;  // slots whose orphan is set
    std::atomic<int> background_limit;
    std::atomic<int> admission_lock;  // 0: free; else the taker's slot + 1
    // Slots below this have taken a place: the count reads only them, a
    // few, not the table's room for every generation.
    std::atomic<int> place_slots;
  };
  static size_t Bytes(int slots);

  WorkerStatusTable(Header* header, int slots)
      : header_(header),
        table_(reinterpret_cast<WorkerSlotStatus*>(header + 1)),
        slots_(slots) {}
  Header* header_;
  WorkerSlotStatus* table_;
  int slots_;
};

}  // namespace awc::obs

#endif  // AWC_OBS_WORKER_STATUS_H_
