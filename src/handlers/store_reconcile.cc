#include "handlers/store_reconcile.h"

#include <string>

#include "catalog/snapshot_verdict.h"
#include "handlers/object_repair.h"
#include "handlers/outcomes.h"
#include "obs/log.h"
#include "obs/metrics.h"
#include "reconcile/reconcile.h"

namespace awc::handlers {
namespace {

// A run held by another job is looked at again after this long, without
// spending an attempt (as a GC sweep that finds its tenant locked).
constexpr double kHeldElsewhereRetrySecs = 60;

}  // namespace

queue::Outcome ReconcileTenant(JobContext& ctx, const TenantPayload& p) {
  reconcile::ReconcileOptions options;
  options.grace_secs = ctx.options().sweep.grace_secs;
  options.lease_secs = ctx.options().sweep.lock_ttl_secs;
  options.job_id = ctx.job().id;
  options.holder = "job_" + std::to_string(ctx.job().id) + "/lease_" +
                   std::to_string(ctx.job().lease_token);
  options.pace = [&ctx](uint64_t bytes, uint64_t objects) {
    return ctx.Pace(bytes, objects);
  };
  options.progress = [&ctx](int64_t keys, int64_t bytes) {
    ctx.Progress(obs::JobProgress{.objects = keys,
                                  .objects_total = -1,
                                  .bytes = bytes,
                                  .bytes_total = -1});
  };
  // A lost or resized object is restored from the repair store, when
  // there is one, before anything is degraded for it.
  reconcile::RepairFn repair;
  if (CanRepair(ctx)) {
    repair = [&ctx, &p](const reconcile::BadObject& bad) -> Result<bool> {
      AWC_ASSIGN_OR_RETURN(
          std::optional<RepairResult> r,
          RepairObjectInTransaction(
              ctx, RepairRequest{.tenant = p.tenant_id,
                                 .digest = bad.digest,
                                 .size = bad.size,
                                 .found_by = kStoreReconcileKind,
                                 .snapshot = std::nullopt}));
      return r == RepairResult::kRepaired;
    };
  }
  Result<reconcile::ReconcileReport> report = reconcile::RunReconcile(
      ctx.db(), ctx.store(), p.tenant_id, options,
      [&ctx] { return ctx.Checkpoint(); }, repair,
      [&ctx, &p](const reconcile::ReconcileReport& added) {
        ctx.metrics().CountReconciled(added.orphans, added.orphan_bytes,
                                      added.missing + added.wrong_size);
        if (added.degraded == 0) return;
        // As a scrub that read the lost objects would have counted them.
        for (int64_t i = 0; i < added.degraded; ++i) {
          ctx.metrics().CountSnapshotVerdict(
              catalog::SnapshotVerdict::kScrubDegraded);
        }
        obs::Warn("job_" + std::to_string(ctx.job().id),
                  "snapshots degraded: objects missing from the store")
            .Str("tenant", p.tenant_id)
            .Int("missing", added.missing)
            .Int("wrong_size", added.wrong_size)
            .Int("degraded", added.degraded)
            .Emit();
      });
  if (!report.ok()) {
    if (report.status().IsNotFound()) {
      return queue::Outcome::Fail(report.status().message(),
                                  queue::DeadReason::kSubjectMissing);
    }
    return RetryOn(report.status());
  }
  if (report->held_elsewhere) {
    return queue::Outcome::Defer(
        kHeldElsewhereRetrySecs,
        "the tenant's reconciliation is held by " + report->holder);
  }
  return queue::Outcome::Complete(reconcile::ReportJson(*report));
}

}  // namespace awc::handlers
