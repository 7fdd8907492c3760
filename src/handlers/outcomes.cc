#include "handlers/outcomes.h"

#include <optional>
#include <string>
#include <utility>

#include "catalog/dag.h"
#include "common/json.h"
#include "obs/log.h"

namespace awc::handlers {

queue::Outcome RetryOn(const Status& status) {
  return queue::Outcome::Retry(status.message());
}

queue::Outcome Skipped(std::string_view state) {
  JsonObject result;
  result.Str("verdict", "skipped").Str("state", state);
  return queue::Outcome::Complete(result.Dump());
}

std::variant<catalog::Snapshot, queue::Outcome> LoadSnapshotIn(
    JobContext& ctx, int64_t id,
    std::initializer_list<catalog::SnapshotState> states) {
  Result<std::optional<catalog::Snapshot>> loaded =
      catalog::LoadSnapshot(ctx.db(), id);
  if (!loaded.ok()) return RetryOn(loaded.status());
  if (!*loaded) {
    return queue::Outcome::Fail(
        "snapshot " + std::to_string(id) + " does not exist",
        queue::DeadReason::kSubjectMissing);
  }
  for (catalog::SnapshotState state : states) {
    if ((*loaded)->state == state) return std::move(**loaded);
  }
  return Skipped(catalog::SnapshotStateName((*loaded)->state));
}

void DropReleasedRefs(JobContext& ctx, const std::string& tenant) {
  Result<int64_t> dropped = catalog::DropStrayRootRefsNow(ctx.db(), tenant);
  if (dropped.ok()) return;
  obs::Warn("job_" + std::to_string(ctx.job().id),
            "released references left to the next gc epoch")
      .Str("tenant", tenant)
      .Str("error", dropped.status().message())
      .Emit();
}

}  // namespace awc::handlers
