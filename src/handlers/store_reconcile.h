// store_reconcile (docs/handlers.md; docs/store.md, "Reconciliation"): one
// inventory reconciliation of a tenant (reconcile/reconcile.h): orphans in
// the store registered for GC, objects missing from it found and their
// snapshots degraded (or repaired), without reading any object's content.
// A run another job holds comes back later without spending an attempt.
#ifndef AWC_HANDLERS_STORE_RECONCILE_H_
#define AWC_HANDLERS_STORE_RECONCILE_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kStoreReconcileKind = "store_reconcile";

queue::Outcome ReconcileTenant(JobContext& ctx, const TenantPayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_STORE_RECONCILE_H_
