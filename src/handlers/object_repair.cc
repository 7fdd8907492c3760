#include "handlers/object_repair.h"

#include "cas/repair.h"
#include "catalog/audit.h"
#include "catalog/objects.h"
#include "common/enum_table.h"
#include "common/json.h"
#include "obs/log.h"

namespace awc::handlers {

const char* RepairResultName(RepairResult r) {
  const RepairResultRow* row = FindRow(kRepairResults, r);
  return row != nullptr ? row->name : "unknown";
}

Result<std::optional<RepairResult>> RepairObjectInTransaction(
    JobContext& ctx, const RepairRequest& r) {
  store::ObjectStore* repair = ctx.repair_store();
  if (repair == nullptr) return std::optional<RepairResult>();
  AWC_ASSIGN_OR_RETURN(std::optional<catalog::ObjectState> state,
                       catalog::LockObjectRow(ctx.db(), r.tenant, r.digest));
  RepairResult result = RepairResult::kRefused;
  if (state != catalog::ObjectState::kDeleting) {
    AWC_ASSIGN_OR_RETURN(store::ObjectKey key,
                         store::MakeKey(r.tenant, r.digest));
    AWC_ASSIGN_OR_RETURN(cas::RepairCopy copy,
                         cas::CopyVerified(*repair, ctx.store(), key, r.size,
                                           ctx.options().closure.spill));
    result = copy == cas::RepairCopy::kRepaired  ? RepairResult::kRepaired
             : copy == cas::RepairCopy::kAbsent  ? RepairResult::kAbsent
             : copy == cas::RepairCopy::kBlocked ? RepairResult::kBlocked
                                                 : RepairResult::kCorrupt;
  }
  JsonObject data;
  data.Str("result", RepairResultName(result)).Str("found_by", r.found_by);
  if (r.snapshot) data.Int("snapshot_id", *r.snapshot);
  if (r.size) data.Int("size", static_cast<int64_t>(*r.size));
  bool repaired = result == RepairResult::kRepaired;
  AWC_RETURN_IF_ERROR(catalog::RecordAudit(
      ctx.db(), r.tenant, repaired ? "object.repaired" : "object.repair_failed",
      "object/" + r.digest, data.Dump()));
  // Counted as decided: a copy made stays made, whatever becomes of the
  // caller's transaction.
  ctx.metrics().CountRepair(RepairResultName(result));
  if (!repaired) {
    obs::Warn("job_" + std::to_string(ctx.job().id),
              "object could not be repaired")
        .Str("tenant", r.tenant)
        .Str("digest", r.digest)
        .Str("result", RepairResultName(result))
        .Emit();
  }
  return std::optional<RepairResult>(result);
}

Result<std::optional<RepairResult>> RepairObject(JobContext& ctx,
                                                 const RepairRequest& r) {
  if (!CanRepair(ctx)) return std::optional<RepairResult>();
  // The copy's read, at the host's read budget, before any lock is held.
  AWC_RETURN_IF_ERROR(ctx.Pace(r.size.value_or(0), 1));
  std::optional<RepairResult> out;
  AWC_RETURN_IF_ERROR(db::InTransaction(ctx.db(), [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(out, RepairObjectInTransaction(ctx, r));
    return Status::OK();
  }));
  return out;
}

}  // namespace awc::handlers
