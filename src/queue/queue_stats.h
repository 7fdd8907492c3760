// Counts of the queue for awcctl stats: jobs by kind and state, how long
// the oldest ready job of each kind has waited, dead letters by reason.
#ifndef AWC_QUEUE_QUEUE_STATS_H_
#define AWC_QUEUE_QUEUE_STATS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "queue/job.h"

namespace awc::queue {

struct KindStats {
  std::string kind;
  int64_t pending = 0;
  int64_t running = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t cancelled = 0;
  // Seconds the oldest ready PENDING job has waited; nullopt when none.
  std::optional<double> oldest_pending_secs;
};

// One row per kind, by kind. Reads the whole table.
Result<std::vector<KindStats>> JobStatsByKind(db::PgConn& conn);

struct ReasonCount {
  std::string reason;  // "" for dead letters without a recorded reason
  int64_t count = 0;
};

// The queue's depth for one kind and state.
struct Depth {
  std::string kind;
  JobState state = JobState::kPending;  // kPending, kRunning or kFailed
  int64_t count = 0;
  // PENDING only: seconds the oldest ready job has waited; nullopt when
  // none is ready.
  std::optional<double> oldest_ready_secs;
  int priority = -1;  // PENDING only: the jobs' priority, 0 to 9
};

// PENDING, RUNNING and FAILED jobs by kind and state, the PENDING ones
// also by priority (kinds and states without jobs have no row). Reads only those rows, through the partial
// indexes of the claim, the lease and the dead letters: cheap enough to run
// every few seconds on a table with millions of finished jobs.
Result<std::vector<Depth>> SampleDepth(db::PgConn& conn);

// FAILED jobs by dead reason, by reason.
Result<std::vector<ReasonCount>> DeadLettersByReason(db::PgConn& conn);

}  // namespace awc::queue

#endif  // AWC_QUEUE_QUEUE_STATS_H_
