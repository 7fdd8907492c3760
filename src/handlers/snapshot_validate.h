// snapshot_validate (docs/handlers.md, "Handlers"): walks the closure of
// a VALIDATING snapshot; READY with its closure recorded, or FAILED with
// the first problem found. Enqueued by the producer (and awcctl import) for
// each new snapshot, and by the validate schedule for one whose job was
// lost.
#ifndef AWC_HANDLERS_SNAPSHOT_VALIDATE_H_
#define AWC_HANDLERS_SNAPSHOT_VALIDATE_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kSnapshotValidateKind = "snapshot_validate";

queue::Outcome ValidateSnapshot(JobContext& ctx, const SnapshotPayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_SNAPSHOT_VALIDATE_H_
