#include "handlers/snapshot_validate.h"

#include <string>
#include <variant>

#include "cas/closure.h"
#include "catalog/snapshot_verdict.h"
#include "catalog/snapshots.h"
#include "catalog/states.h"
#include "common/json.h"
#include "handlers/outcomes.h"
#include "obs/metrics.h"

namespace awc::handlers {

queue::Outcome ValidateSnapshot(JobContext& ctx, const SnapshotPayload& p) {
  auto subject =
      LoadSnapshotIn(ctx, p.snapshot_id, {catalog::SnapshotState::kValidating});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  JsonObject result;
  Result<cas::ClosureReport> report = cas::WalkClosure(
      ctx.store(), snap.tenant_id, snap.root_digest, ctx.options().closure,
      [&ctx] { return ctx.Checkpoint(); });
  if (!report.ok()) return RetryOn(report.status());

  Result<bool> applied =
      report->verdict == cas::Verdict::kOk
          ? catalog::CommitValidated(ctx.db(), snap, *report)
          : catalog::CommitValidationFailed(ctx.db(), snap, *report);
  if (!applied.ok()) return RetryOn(applied.status());
  if (!*applied) {
    // Another run decided first: skipped, with the state it left (wanting
    // no state, LoadSnapshotIn always ends the job).
    return std::get<queue::Outcome>(LoadSnapshotIn(ctx, p.snapshot_id, {}));
  }
  ctx.metrics().CountSnapshotVerdict(
      report->verdict == cas::Verdict::kOk
          ? catalog::SnapshotVerdict::kValidateReady
          : catalog::SnapshotVerdict::kValidateFailed);
  if (report->verdict == cas::Verdict::kOk) {
    result.Str("verdict", "ready")
        .Int("objects", static_cast<int64_t>(report->objects.size()))
        .Int("bytes", static_cast<int64_t>(report->bytes));
  } else {
    result.Str("verdict", "failed")
        .Str("code", cas::VerdictCode(report->verdict))
        .Str("digest", report->digest);
  }
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
