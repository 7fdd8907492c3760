#include "catalog/snapshots.h"
#include "common/json.h"
#include "handlers/storage_handlers.h"

namespace awc::handlers {

cas::ClosureLimits LimitsFrom(const config::Settings& s) {
  cas::ClosureLimits limits;
  limits.manifest_max_bytes = static_cast<uint64_t>(s.manifest_max_bytes);
  limits.max_depth = static_cast<int>(s.closure_max_depth);
  limits.max_objects = static_cast<uint64_t>(s.closure_max_objects);
  return limits;
}

queue::Outcome ValidateSnapshot(JobContext& ctx, const SnapshotPayload& p) {
  auto subject = LoadSnapshotIn(ctx, p.snapshot_id, {"VALIDATING"});
  if (auto* done = std::get_if<queue::Outcome>(&subject)) return *done;
  const catalog::Snapshot& snap = std::get<catalog::Snapshot>(subject);
  JsonObject result;
  Result<cas::ClosureReport> report = cas::WalkClosure(
      ctx.store(), snap.tenant_id, snap.root_digest, LimitsFrom(ctx.settings()),
      [&ctx] { return ctx.Checkpoint(); });
  if (!report.ok()) return RetryOn(report.status());

  Result<bool> applied =
      report->verdict == cas::Verdict::kOk
          ? catalog::CommitValidated(ctx.db(), snap, *report)
          : catalog::CommitValidationFailed(ctx.db(), snap, *report);
  if (!applied.ok()) return RetryOn(applied.status());
  if (!*applied) {
    // Another run decided first; report what it decided.
    auto now = LoadSnapshotIn(ctx, p.snapshot_id, {});
    if (auto* done = std::get_if<queue::Outcome>(&now)) return *done;
  }
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
