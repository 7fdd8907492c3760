// Heartbeat: when a worker writes its row of awc.workers (fleet/workers.h,
// docs/observability.md "Worker heartbeats"), through its JobSource.
//
// Contract:
//  - Set() records the worker's state (and the job in flight while busy);
//    Tick() writes it when due: a change once `min_secs` have passed since
//    the last write, an unchanged state once `keepalive_secs` have. So a
//    worker racing through jobs writes at most one row every `min_secs`,
//    and an idle one every `keepalive_secs`.
//  - The first write of each session (after Restart()) is due at once and
//    also prunes the rows of workers long gone; so does a write every
//    kPruneSecs.
//  - Stop() writes "stopped" at once: the worker's last word.
//  - Nothing is written without a working session. A failed write is
//    reported (Reporter::DatabaseError, step "heartbeat") and tried again
//    `min_secs` later; it never disconnects (a handler may hold the
//    session) and never stops the worker.
//  - SecondsUntilDue() says how long the worker may wait before the next
//    Tick() has something to write (0 when it is due).
#ifndef AWC_WORKER_HEARTBEAT_H_
#define AWC_WORKER_HEARTBEAT_H_

#include <cstdint>
#include <string>

#include "common/env.h"
#include "fleet/workers.h"
#include "queue/job.h"
#include "worker/job_source.h"
#include "worker/reporter.h"

namespace awc::worker {

class Heartbeat {
 public:
  // How often the rows of long-gone workers are pruned, per worker.
  static constexpr double kPruneSecs = 600;

  // None of the pointers is null; all outlive the Heartbeat.
  Heartbeat(JobSource* source, Reporter* reporter, Env* env, double min_secs,
            double keepalive_secs);

  // The state to write; `job` is the job in flight when kBusy, else null.
  // Another job (or none) clears the progress.
  void Set(fleet::BeatState state, const queue::Job* job);
  // How far the job in flight has got (JSON, obs/progress.h), written with
  // the next write that is due anyway: progress alone does not make one.
  void SetProgress(std::string progress) { progress_ = std::move(progress); }
  // Writes the state when due (see the contract).
  void Tick();
  // A new session: the next Tick() writes at once, and prunes.
  void Restart();
  // Writes "stopped" now, if there is a working session.
  void Stop();

  double SecondsUntilDue() const;

 private:
  double DueAt() const;
  void Write();

  std::string progress_;
  JobSource* source_;
  Reporter* reporter_;
  Env* env_;
  double min_secs_;
  double keepalive_secs_;
  fleet::BeatState state_ = fleet::BeatState::kIdle;
  int64_t job_id_ = 0;
  std::string job_kind_;
  bool changed_ = true;    // since the last write
  bool first_ = true;      // no write yet on this session
  double last_write_ = 0;  // monotonic; meaningful once !first_
  double next_prune_ = 0;
};

}  // namespace awc::worker

#endif  // AWC_WORKER_HEARTBEAT_H_
