// Paused job kinds (docs/queue.md, "Pausing a kind"; awcctl(1), "kinds").
//
// Contract: while a kind has a row in awc.paused_kinds, no worker of any
// host claims its PENDING jobs (the claim statement tests the table
// itself: queue_sql.h, kClaim); its RUNNING jobs run to their end and
// jobs of it are still enqueued, PENDING. Resuming deletes the row, which
// notifies awc_jobs so that idle workers claim the backlog at once.
// Pausing a paused kind and resuming a running one change nothing.
#ifndef AWC_QUEUE_PAUSED_KINDS_H_
#define AWC_QUEUE_PAUSED_KINDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

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
  int64_t pending = 0;
  int64_t running = 0;
};

// The kinds that are in `builtin`, paused, or have PENDING or RUNNING
// jobs, by kind. Reads only the PENDING and RUNNING jobs.
Result<std::vector<KindStatus>> ListKinds(
    db::PgConn& conn, const std::vector<std::string_view>& builtin);

}  // namespace awc::queue

#endif  // AWC_QUEUE_PAUSED_KINDS_H_
