// ClaimCursor and FullPassClock: where a worker's claims and lease sweeps
// start their walk of the queue's indexes (docs/queue.md, "The claim
// cursor").
//
// While something else in the cluster pins the MVCC horizon, every job
// claimed since leaves a dead entry at the start of jobs_claim_idx that
// nothing may remove; a claim that walks the index from its start visits
// all of them. A ClaimCursor remembers the last job this session claimed,
// so that the next claim starts just after it.
//
// Contract:
//  - The cursor is a position (run_at in microseconds since the Unix
//    epoch, id) for each priority, in that priority's order in
//    jobs_priority_claim_idx; a claim considers only entries at or after
//    it. A new cursor is at the start (before every job).
//  - Claimed() moves the claimed job's priority just past it; a claim that
//    found nothing, Passed(), moves every priority to the claim's now(): it
//    walked every entry up to there and none was ready and free.
//    JobReadyAt() moves every priority back (never forward) to before every
//    job of that run_at: a job that became ready behind the cursor, as a
//    notification on awc_jobs says. Rewind() goes back to the start (a
//    notification that does not say where, a failed claim, a new session).
//  - A claim from the start is a full pass. Begin() rewinds when the
//    FullPassClock says a full pass is due, so that a job no notification
//    announced (a transaction pooler delivers none) waits at most that long.
//  - Plain values; single-threaded like the worker.
#ifndef AWC_QUEUE_CLAIM_CURSOR_H_
#define AWC_QUEUE_CLAIM_CURSOR_H_

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "queue/job.h"

namespace awc::queue {

// When a scan that usually covers only what is new must cover everything
// again. A full pass is due at once, then again `min_secs` after the last
// one ended, or `cost_factor` times as long as the last one took if that
// is longer: full passes then take at most 1/cost_factor of the time,
// however much a pinned horizon makes them cost.
class FullPassClock {
 public:
  static constexpr double kMinSecs = 1.0;
  static constexpr double kCostFactor = 50.0;

  bool Due(double now) const { return now >= due_at_; }
  // A full pass that took `took_secs` ended at `now`.
  void Done(double now, double took_secs);
  // The next pass is a full one.
  void Force() { due_at_ = -std::numeric_limits<double>::infinity(); }
  // When the next full pass is due (monotonic seconds).
  double due_at() const { return due_at_; }

 private:
  double due_at_ = -std::numeric_limits<double>::infinity();
};

// Where the walk of one priority starts: a position (run_at in
// microseconds since the Unix epoch, id) in the order of that priority's
// jobs in jobs_priority_claim_idx. A new one is at the start.
class ClaimPosition {
 public:
  // run_at's microseconds for -infinity (sent as NULL).
  static constexpr int64_t kMinusInfinity = std::numeric_limits<int64_t>::min();

  bool at_start() const {
    return micros_ == kMinusInfinity && id_ == kMinusInfinity;
  }
  // run_at in microseconds (nullopt for -infinity), and id.
  std::optional<int64_t> micros() const;
  int64_t id() const { return id_; }

  // The job at (`micros`, `id`) was claimed: the next claim starts after it.
  void Claimed(int64_t micros, int64_t id);
  // A claim whose transaction began at `micros` (its now(), as a run_at)
  // found no job here: the next claim starts there, unless the position is
  // further on. Without this, a session that finds nothing (another one
  // was quicker) stays where it was, and a pass from the start, finding
  // nothing, would be followed by another, and another.
  void Passed(int64_t micros);
  // A job whose run_at is `micros` became ready: back (never forward) to
  // before every job of that run_at.
  void JobReadyAt(int64_t micros);
  void Rewind() { micros_ = id_ = kMinusInfinity; }

 private:
  int64_t micros_ = kMinusInfinity;
  int64_t id_ = kMinusInfinity;
};

class ClaimCursor {
 public:
  static constexpr int kPriorities = kPriorityCount;
  static constexpr int64_t kMinusInfinity = ClaimPosition::kMinusInfinity;

  // Whether the next claim starts at the index's start.
  bool at_start() const;
  // The claim's bounds as statement parameters: bigint[] literals of each
  // priority's run_at in microseconds (NULL for -infinity) and id.
  std::string micros_param() const;
  std::string ids_param() const;
  const ClaimPosition& position(int priority) const;

  // The job of `priority` at (`micros`, `id`) was claimed by a claim whose
  // transaction began at `now_micros`: that priority's walk starts after
  // it, and each more urgent one's at that now(), since the claim walked
  // them up to there and found nothing ready and free.
  void Claimed(int priority, int64_t micros, int64_t id, int64_t now_micros);
  // A claim whose transaction began at `micros` found no job at all.
  void Passed(int64_t micros);
  // A job whose run_at is `micros` became ready; of which priority the
  // notification does not say, so every walk goes back to before it.
  void JobReadyAt(int64_t micros);
  // A run_at in microseconds as migration 0019 writes it (kClaim's column,
  // awc_jobs' payloads); anything else ('' for -infinity, or no position at
  // all) is kMinusInfinity.
  static int64_t ParseMicros(std::string_view text);
  // A notification payload on awc_jobs: the job ready at that run_at, or
  // anywhere (back to the start).
  void Notified(const char* payload) {
    JobReadyAt(ParseMicros(payload == nullptr ? "" : payload));
  }
  void Rewind();

  // Before a claim at monotonic time `now`: rewinds if a full pass is due.
  // Returns whether the claim is a full pass.
  bool Begin(double now);
  // After the claim Begin() started: a full pass that ended at `now` after
  // `took_secs` is noted; a failed claim rewinds (what it skipped or left
  // behind may lie before the cursor).
  void End(bool full_pass, bool ok, double now, double took_secs);

  const FullPassClock& clock() const { return clock_; }

 private:
  std::array<ClaimPosition, kPriorities> positions_;
  FullPassClock clock_;
};

}  // namespace awc::queue

#endif  // AWC_QUEUE_CLAIM_CURSOR_H_
