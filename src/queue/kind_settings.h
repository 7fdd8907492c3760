// What an operator sets per job kind (awcctl(1), "kinds"): pauses
// (docs/queue.md, "Pausing a kind") and priorities ("Priorities").
//
// Contract: while a kind has a row in awc.paused_kinds, no worker of any
// host claims its PENDING jobs (the claim statement tests the table
// itself: queue_sql.h, kClaim); its RUNNING jobs run to their end and
// jobs of it are still enqueued, PENDING. Resuming deletes the row, which
// notifies awc_jobs so that idle workers claim the backlog at once.
// Pausing a paused kind and resuming a running one change nothing.
//
// A kind's priority (awc.kind_settings) is what a job of it gets when its
// producer sets none; changing it also moves the kind's PENDING jobs that
// have the old one, not those their producer gave another.
#ifndef AWC_QUEUE_KIND_SETTINGS_H_
#define AWC_QUEUE_KIND_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "queue/job.h"

namespace awc::queue {

// A row of awc.paused_kinds; paused_at is ISO 8601 UTC.
struct PausedKind {
  std::string kind;
  std::string paused_at;
  std::string paused_by;  // "" when unrecorded
  std::string reason;     // "" when none
};

// What PauseKind or ResumeKind did.
struct KindChange {
  bool changed = false;  // false: it was paused (pause) or not (resume)
  std::optional<PausedKind> pause;  // the pause made, kept or ended
};

// Pauses `kind`: `by` ("" for the database role) and `reason` ("" for
// none) are kept with it. An existing pause is kept as it was.
Result<KindChange> PauseKind(db::PgConn& conn, const std::string& kind,
                             const std::string& by, const std::string& reason);

// Resumes `kind`.
Result<KindChange> ResumeKind(db::PgConn& conn, const std::string& kind);

// Every paused kind, by kind.
Result<std::vector<PausedKind>> PausedKinds(db::PgConn& conn);

// Whether awc.jobs holds a job of `kind`, in any state.
Result<bool> KindHasJobs(db::PgConn& conn, const std::string& kind);

// A kind as awcctl kinds list shows it.
struct KindStatus {
  std::string kind;
  bool builtin = false;
  std::optional<PausedKind> pause;  // set while paused
  int priority = kDefaultPriority;  // what its jobs get by default
  std::optional<int> host_limit;    // per AWC_WORKER_ID; nullopt: none
  std::optional<int> fleet_limit;   // in all; nullopt: none
  int64_t pending = 0;
  int64_t running = 0;
};

// What SetKindPriority did.
struct PriorityChange {
  int was = kDefaultPriority;  // the kind's priority before
  int64_t moved = 0;           // PENDING jobs moved from `was` to the new one
};

// Sets the priority of `kind` (0 to 9) for the jobs enqueued from now on
// without one, and moves its PENDING jobs of the old one; `by` as for
// PauseKind.
Result<PriorityChange> SetKindPriority(db::PgConn& conn,
                                       const std::string& kind, int priority,
                                       const std::string& by);

// A change of a kind's concurrency limits: each one set when `set_*`,
// to the value, nullopt for none.
struct KindLimits {
  bool set_host = false;
  std::optional<int> host;
  bool set_fleet = false;
  std::optional<int> fleet;
};

// Sets the concurrency limits of `kind` (docs/queue.md, "Concurrency
// limits") and returns them as they are now; `by` as for PauseKind.
// Workers keep them from their next claim but one.
Result<KindLimits> SetKindLimits(db::PgConn& conn, const std::string& kind,
                                 const KindLimits& change,
                                 const std::string& by);

// The kinds that are in `builtin`, paused, given a priority, or have
// PENDING or RUNNING jobs, by kind. Reads only the PENDING and RUNNING
// jobs.
Result<std::vector<KindStatus>> ListKinds(
    db::PgConn& conn, const std::vector<std::string_view>& builtin);

}  // namespace awc::queue

#endif  // AWC_QUEUE_KIND_SETTINGS_H_
