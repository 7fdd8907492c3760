// workspace_expire (docs/handlers.md, "Handlers"): one step of a
// workspace's TTL machine (ACTIVE -> EXPIRING -> EXPIRED, or back to ACTIVE
// when renewed), decided with the row locked; EXPIRED releases the
// workspace's snapshots. Uses HandlerOptions::retention_grace_secs.
#ifndef AWC_HANDLERS_WORKSPACE_EXPIRE_H_
#define AWC_HANDLERS_WORKSPACE_EXPIRE_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kWorkspaceExpireKind = "workspace_expire";

queue::Outcome ExpireWorkspace(JobContext& ctx, const WorkspacePayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_WORKSPACE_EXPIRE_H_
