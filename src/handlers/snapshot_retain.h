// snapshot_retain (docs/handlers.md, "Handlers"): releases a READY
// snapshot its workspace's retention policy (or expiry) no longer keeps.
#ifndef AWC_HANDLERS_SNAPSHOT_RETAIN_H_
#define AWC_HANDLERS_SNAPSHOT_RETAIN_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kSnapshotRetainKind = "snapshot_retain";

queue::Outcome RetainSnapshot(JobContext& ctx, const SnapshotPayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_SNAPSHOT_RETAIN_H_
