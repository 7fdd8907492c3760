#include "catalog/workspaces.h"
#include "common/json.h"
#include "handlers/storage_handlers.h"

namespace awc::handlers {

queue::Outcome ExpireWorkspace(JobContext& ctx, const WorkspacePayload& p) {
  Result<catalog::WorkspaceStep> step = catalog::AdvanceWorkspace(
      ctx.db(), p.workspace_id, ctx.options().retention_grace_secs);
  if (!step.ok()) return RetryOn(step.status());
  if (!step->found) {
    return queue::Outcome::Fail("workspace " + std::to_string(p.workspace_id) +
                                " does not exist");
  }
  JsonObject result;
  if (step->from == step->to) {
    result.Str("verdict", step->from == "EXPIRED" ? "skipped" : "unchanged")
        .Str("state", step->from);
  } else {
    result.Str("verdict", "transitioned")
        .Str("from", step->from)
        .Str("to", step->to);
    if (step->to == "EXPIRED") result.Int("released_snapshots", step->released);
  }
  if (step->next_due.empty()) {
    result.Null("next_due");
  } else {
    result.Str("next_due", step->next_due);
  }
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
