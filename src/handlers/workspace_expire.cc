#include "handlers/workspace_expire.h"

#include <string>

#include "catalog/states.h"
#include "catalog/workspaces.h"
#include "common/json.h"
#include "handlers/outcomes.h"

namespace awc::handlers {

queue::Outcome ExpireWorkspace(JobContext& ctx, const WorkspacePayload& p) {
  Result<catalog::WorkspaceStep> step = catalog::AdvanceWorkspace(
      ctx.db(), p.workspace_id, ctx.options().retention_grace_secs);
  if (!step.ok()) return RetryOn(step.status());
  if (!step->found) {
    return queue::Outcome::Fail(
        "workspace " + std::to_string(p.workspace_id) + " does not exist",
        queue::DeadReason::kSubjectMissing);
  }
  using catalog::WorkspaceState;
  JsonObject result;
  if (step->from == step->to) {
    result
        .Str("verdict",
             step->from == WorkspaceState::kExpired ? "skipped" : "unchanged")
        .Str("state", catalog::WorkspaceStateName(step->from));
  } else {
    result.Str("verdict", "transitioned")
        .Str("from", catalog::WorkspaceStateName(step->from))
        .Str("to", catalog::WorkspaceStateName(step->to));
    if (step->to == WorkspaceState::kExpired) {
      result.Int("released_snapshots", step->released);
      if (step->released > 0) DropReleasedRefs(ctx, step->tenant);
    }
  }
  if (step->next_due.empty()) {
    result.Null("next_due");
  } else {
    result.Str("next_due", step->next_due);
  }
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
