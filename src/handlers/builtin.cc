#include "handlers/registry.h"
#include "handlers/storage_handlers.h"

namespace awc::handlers {

void RegisterBuiltinHandlers(Registry& registry) {
  registry.Add<SnapshotPayload>("snapshot_validate", DecodeSnapshotPayload,
                                ValidateSnapshot);
  registry.Add<SnapshotPayload>("snapshot_scrub", DecodeSnapshotPayload,
                                ScrubSnapshot);
  registry.Add<WorkspacePayload>("workspace_expire", DecodeWorkspacePayload,
                                 ExpireWorkspace);
  registry.Add<SnapshotPayload>("snapshot_retain", DecodeSnapshotPayload,
                                RetainSnapshot);
  registry.Add<TenantPayload>("gc_sweep", DecodeTenantPayload, SweepTenant);
}

queue::Outcome RetryOn(const Status& status) {
  return queue::Outcome::Retry(status.message());
}

}  // namespace awc::handlers
