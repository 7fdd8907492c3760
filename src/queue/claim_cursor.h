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
//    epoch, id) in jobs_claim_idx's order; a claim considers only entries at
//    or after it. A new cursor is at the start (before every job).
//  - Claimed() moves it just past the job claimed; a claim that found
//    nothing, Passed(), to the claim's now(): it walked every entry up to
//    there and none was ready and free. JobReadyAt() moves it
//    back (never forward) to before every job of that run_at: a job that
//    became ready behind the cursor, as a notification on awc_jobs says.
//    Rewind() goes back to the start (a notification that does not say
//    where, a failed claim, a new session).
//  - A claim from the start is a full pass. Begin() rewinds when the
//    FullPassClock says a full pass is due, so that a job no notification
//    announced (a transaction pooler delivers none) waits at most that long.
//  - Plain values; single-threaded like the worker.
#ifndef AWC_QUEUE_CLAIM_CURSOR_H_
#define AWC_QUEUE_CLAIM_CURSOR_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

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

class ClaimCursor {
 public:
  // run_at's microseconds for -infinity (sent as NULL).
  static constexpr int64_t kMinusInfinity = std::numeric_limits<int64_t>::min();

  // Whether the next claim starts at the index's start.
  bool at_start() const {
    return micros_ == kMinusInfinity && id_ == kMinusInfinity;
  }
  // The claim's bounds as statement parameters: run_at in microseconds
  // (nullopt for -infinity) and id.
  std::optional<std::string> micros_param() const;
  std::string id_param() const { return std::to_string(id_); }

  // The job at (`micros`, `id`) was claimed: the next claim starts after it.
  void Claimed(int64_t micros, int64_t id);
  // A claim whose transaction began at `micros` (its now(), as a run_at)
  // found no job: the next claim starts there, unless the cursor is
  // further on. Without this, a session that finds nothing (another one
  // was quicker) stays where it was, and a pass from the start, finding
  // nothing, would be followed by another, and another.
  void Passed(int64_t micros);
  // A job whose run_at is `micros` became ready.
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
  void Rewind() { micros_ = id_ = kMinusInfinity; }

  // Before a claim at monotonic time `now`: rewinds if a full pass is due.
  // Returns whether the claim is a full pass.
  bool Begin(double now);
  // After the claim Begin() started: a full pass that ended at `now` after
  // `took_secs` is noted; a failed claim rewinds (what it skipped or left
  // behind may lie before the cursor).
  void End(bool full_pass, bool ok, double now, double took_secs);

  const FullPassClock& clock() const { return clock_; }

 private:
  int64_t micros_ = kMinusInfinity;
  int64_t id_ = kMinusInfinity;
  FullPassClock clock_;
};

}  // namespace awc::queue

#endif  // AWC_QUEUE_CLAIM_CURSOR_H_
