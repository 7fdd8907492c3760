#include "handlers/gc_sweep.h"

#include <string>

#include "common/json.h"
#include "gc/epoch_result.h"
#include "gc/sweep.h"
#include "handlers/outcomes.h"
#include "obs/metrics.h"

namespace awc::handlers {
namespace {

// A sweep that finds its tenant locked comes back after this long, without
// spending an attempt: being locked out is an expected outcome, not an
// error (docs/queue.md, "Queue semantics").
constexpr double kLockedOutRetrySecs = 30;

// The result label of awc_gc_epochs_total: a sweep locked out is deferred.
gc::GcEpochResult EpochResult(gc::SweepReport::Verdict verdict) {
  switch (verdict) {
    case gc::SweepReport::Verdict::kCompleted:
      break;
    case gc::SweepReport::Verdict::kDryRun:
      return gc::GcEpochResult::kDryRun;
    case gc::SweepReport::Verdict::kAborted:
      return gc::GcEpochResult::kAborted;
    case gc::SweepReport::Verdict::kRefused:
      return gc::GcEpochResult::kRefused;
    case gc::SweepReport::Verdict::kLockedOut:
      return gc::GcEpochResult::kDeferred;
  }
  return gc::GcEpochResult::kCompleted;
}

}  // namespace

queue::Outcome SweepTenant(JobContext& ctx, const TenantPayload& p) {
  gc::SweepOptions options = ctx.options().sweep;
  options.job_id = ctx.job().id;
  options.holder = "job_" + std::to_string(ctx.job().id) + "/lease_" +
                   std::to_string(ctx.job().lease_token);
  Result<gc::SweepReport> report = gc::RunSweep(
      ctx.db(), ctx.store(), p.tenant_id, options,
      [&ctx] { return ctx.Checkpoint(); },
      [&ctx](int64_t objects, int64_t bytes) {
        ctx.metrics().CountGcDeleted(objects, bytes);
      });
  if (!report.ok()) {
    if (report.status().IsNotFound()) {
      return queue::Outcome::Fail(report.status().message(),
                                  queue::DeadReason::kSubjectMissing);
    }
    return RetryOn(report.status());
  }
  ctx.metrics().CountGcEpoch(EpochResult(report->verdict));
  if (report->verdict == gc::SweepReport::Verdict::kLockedOut) {
    return queue::Outcome::Defer(kLockedOutRetrySecs, report->reason);
  }
  JsonObject result;
  result.Str("verdict", gc::VerdictName(report->verdict))
      .Int("epoch_id", report->epoch_id)
      .Bool("resumed", report->resumed)
      .Int("planned", report->planned)
      .Int("planned_bytes", report->planned_bytes)
      .Int("deleted", report->deleted)
      .Int("deleted_bytes", report->deleted_bytes)
      .Int("kept", report->kept);
  if (!report->reason.empty()) result.Str("reason", report->reason);
  return queue::Outcome::Complete(result.Dump());
}

}  // namespace awc::handlers
