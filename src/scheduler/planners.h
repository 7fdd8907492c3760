// The built-in schedules and their planners (docs/scheduler.md,
// "Scheduler"): each planner is one indexed statement of scheduler_sql.h
// that enqueues one job per due subject, deduplicated on jobs_dedupe_idx;
// prune deletes old rows in bounded batches instead.
//
// Contract:
//  - RunPlanner() and EnqueueScheduled() run one statement on the caller's
//    connection, inside the caller's transaction (the firing's, fenced).
//  - The statements run unprepared: each runs once a period, and is planned
//    for its actual values (tests/scheduler/planners_plan_test.cc pins those
//    plans).
//  - Prune() runs its batches each in a transaction of its own that starts
//    with `fence` (the leader lease), and calls `checkpoint` between
//    batches: false stops it early (a stop was requested), an error stops
//    it with that error (leadership lost, the session gone).
#ifndef AWC_SCHEDULER_PLANNERS_H_
#define AWC_SCHEDULER_PLANNERS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "db/pg.h"
#include "scheduler/scheduler_options.h"

namespace awc::scheduler {

struct BuiltinSchedule {
  const char* name;
  const char* spec;  // the default; an operator may change it
  const char* kind;  // the kind of the jobs it enqueues; "" for prune
};

// gc, expire, retain, scrub, validate, reconcile, prune.
std::span<const BuiltinSchedule> BuiltinSchedules();
bool IsBuiltinPlanner(std::string_view name);

inline constexpr const char* kPrune = "prune";
// Most jobs one firing of a built-in planner enqueues (scrub: its own
// setting); the rest are due again at the next firing.
inline constexpr int64_t kMaxJobsPerRun = 10000;
// A VALIDATING snapshot is left to its producer's job for this long.
inline constexpr int64_t kValidateMinAgeSecs = 60;
// Rows deleted per prune transaction.
inline constexpr int64_t kPruneBatch = 1000;

// The scrub coverage promise (docs/store.md, "The coverage promise"):
// every object a snapshot references verified at least once every
// AWC_SCRUB_INTERVAL_SECS, with the budget the fleet has.
struct ScrubCoverage {
  int64_t promise_secs = 0;           // AWC_SCRUB_INTERVAL_SECS
  int64_t objects = 0;                // LIVE objects snapshots reference
  int64_t verified = 0;               // of them, verified within the promise
  int64_t bytes = 0;                  // their bytes
  double oldest_unverified_secs = 0;  // since the oldest's last verification
  int64_t hosts = 0;                  // hosts running workers
  double required_bytes_per_sec = 0;  // bytes / the promise
  double budget_bytes_per_sec = 0;    // a host's budget x hosts; 0: none
  bool budget_enough() const {
    return budget_bytes_per_sec <= 0 ||
           budget_bytes_per_sec >= required_bytes_per_sec;
  }
  // Some object waited longer than the promise for its verification.
  bool broken() const {
    return objects > 0 &&
           oldest_unverified_secs > static_cast<double>(promise_secs);
  }
};

// The scrub planner plans each snapshot this share of the promise after
// its last verification, so that its scrub has the rest to wait in the
// queue and run at the budget's pace.
inline constexpr double kScrubPlanShare = 0.9;

struct PlanResult {
  int64_t due = 0;       // subjects found due
  int64_t enqueued = 0;  // jobs inserted; the others had a live job already
  std::optional<ScrubCoverage> coverage;  // the scrub planner's sample
};

// The statement of built-in planner `name` (not prune); kInvalidArgument for
// an unknown name.
Result<const char*> PlannerStatement(std::string_view name);

// Runs built-in planner `name` (not prune).
Result<PlanResult> RunPlanner(db::PgConn& conn, std::string_view name,
                              const SchedulerOptions& options);

// The coverage of the promise now (kScrubCoverage), and the budget it has.
Result<ScrubCoverage> SampleScrubCoverage(db::PgConn& conn,
                                          const SchedulerOptions& options);

// An operator schedule's firing: one job of `kind` with `payload`, deduped
// on "schedule:<name>".
Result<PlanResult> EnqueueScheduled(db::PgConn& conn, const std::string& name,
                                    const std::string& kind,
                                    const std::string& payload);

struct PruneResult {
  int64_t jobs = 0;          // COMPLETED and CANCELLED
  int64_t dead_letters = 0;  // FAILED
  int64_t audit_events = 0;
  int64_t gc_candidates = 0;
  bool complete = true;  // false: stopped before everything old was gone
};

Result<PruneResult> Prune(db::PgConn& conn, const SchedulerOptions& options,
                          const std::function<Status()>& fence,
                          const std::function<Result<bool>()>& checkpoint);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_PLANNERS_H_
