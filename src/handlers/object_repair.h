// Restoring an object the store lost or holds damaged from the repair
// store (AWC_CAS_REPAIR_URL), for the handlers that find one: validation,
// scrub and inventory reconciliation (docs/store.md, "Repair").
//
// Contract:
//  - Nothing happens without a repair store (kNoRepairStore).
//  - The object's inventory row is locked (FOR SHARE) for as long as the
//    copy takes, so GC cannot mark it meanwhile; a row GC is already
//    deleting is left alone (kRefused): repair never resurrects what GC is
//    deleting. An object with no row at all may be repaired (a validation
//    registers it at commit, as it registers what it read).
//  - The repair store is never trusted: cas::CopyVerified writes only
//    bytes that hash to the digest and have the declared size.
//  - Every decision is counted in awc_repairs_total{result} and recorded as
//    the audit event object.repaired or object.repair_failed (subject
//    object/<digest>), in the transaction that held the row.
//  - Errors (a repair store that is down, the database) come back as
//    Status: the job retries.
#ifndef AWC_HANDLERS_OBJECT_REPAIR_H_
#define AWC_HANDLERS_OBJECT_REPAIR_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "handlers/job_context.h"

namespace awc::handlers {

enum class RepairResult { kRepaired, kAbsent, kCorrupt, kRefused, kBlocked };

struct RepairResultRow {
  RepairResult value;
  const char* name;  // awc_repairs_total's result label
};
inline constexpr RepairResultRow kRepairResults[] = {
    {RepairResult::kRepaired, "repaired"}, {RepairResult::kAbsent, "absent"},
    {RepairResult::kCorrupt, "corrupt"},   {RepairResult::kRefused, "refused"},
    {RepairResult::kBlocked, "blocked"},
};
const char* RepairResultName(RepairResult r);

// A bad object, and who found it (for the audit event).
struct RepairRequest {
  std::string tenant;
  std::string digest;
  std::optional<uint64_t> size;     // declared; none for a snapshot's root
  const char* found_by = "";        // the kind of the job that found it
  std::optional<int64_t> snapshot;  // the snapshot it found it in
};

// Whether a repair store is configured.
inline bool CanRepair(JobContext& ctx) { return ctx.repair_store() != nullptr; }

// In a transaction of its own. nullopt when there is no repair store.
Result<std::optional<RepairResult>> RepairObject(JobContext& ctx,
                                                 const RepairRequest& r);

// The same in the caller's transaction, which locks the row itself
// (reconciliation settles its suspects under their row locks already).
Result<std::optional<RepairResult>> RepairObjectInTransaction(
    JobContext& ctx, const RepairRequest& r);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_OBJECT_REPAIR_H_
