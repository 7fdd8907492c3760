// snapshot_scrub (docs/handlers.md, "Handlers"): re-verifies the
// recorded closure of a READY snapshot; decay makes it DEGRADED and pins
// its closure against GC.
#ifndef AWC_HANDLERS_SNAPSHOT_SCRUB_H_
#define AWC_HANDLERS_SNAPSHOT_SCRUB_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kSnapshotScrubKind = "snapshot_scrub";

queue::Outcome ScrubSnapshot(JobContext& ctx, const ScrubPayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_SNAPSHOT_SCRUB_H_
