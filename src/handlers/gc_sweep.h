// gc_sweep (docs/handlers.md; docs/gc.md, "GC safety"): one durable GC
// epoch for a tenant (gc/sweep.h); a tenant whose GC lock is held comes
// back later without spending an attempt.
#ifndef AWC_HANDLERS_GC_SWEEP_H_
#define AWC_HANDLERS_GC_SWEEP_H_

#include "handlers/job_context.h"
#include "handlers/payload.h"
#include "queue/job.h"

namespace awc::handlers {

// The kind's name in awc.jobs.kind.
inline constexpr const char* kGcSweepKind = "gc_sweep";

queue::Outcome SweepTenant(JobContext& ctx, const TenantPayload& p);

}  // namespace awc::handlers

#endif  // AWC_HANDLERS_GC_SWEEP_H_
