// The outcomes the built-in handlers share (docs/handlers.md,
// "Handlers"). Each handler returns data: the subject's verdict is the job's
// result, not a job failure. Errors that stop a handler (transient store or
// database problems, a lost lease, a store misconfiguration an operator can
// fix) are retried with backoff, bounded by the job's max_attempts; a
// payload that does not decode, or a subject that does not exist, is
// dead-lettered.
#ifndef AWC_HANDLERS_OUTCOMES_H_
#define AWC_HANDLERS_OUTCOMES_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

#include "catalog/snapshots.h"
#include "catalog/states.h"
#include "common/status.h"
#include "handlers/job_context.h"
#include "queue/job.h"

namespace awc::handlers {

// The outcome for an error that stopped a handler: Retry with its message.
queue::Outcome RetryOn(const Status& status);

// Complete {"verdict": "skipped", "state": state}.
queue::Outcome Skipped(std::string_view state);

// The snapshot a job is about, or the outcome that ends the job right away:
// Fail when it does not exist, Retry when it cannot be read, Skipped (with
// its state's name) when its state is none of `states`.
std::variant<catalog::Snapshot, queue::Outcome> LoadSnapshotIn(
    JobContext& ctx, int64_t id,
    std::initializer_list<catalog::SnapshotState> states);

// After a release committed (retention, a workspace's expiry): drops the
// released roots' references in a transaction of its own. When that fails
// the next GC epoch drops them; a warning says so, the job's outcome stays.
void DropReleasedRefs(JobContext& ctx, const std::string& tenant);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_OUTCOMES_H_
