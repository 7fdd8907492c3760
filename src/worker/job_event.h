// The structured event and metrics of one processed job
// (docs/observability.md, "Observability").
//
// The event id is job_<id>; level and message follow from the state the job
// was left in (its outcome label): COMPLETED (completed): info "job
// completed"; PENDING (retried): warn "job retried after transient
// failure", or, when the handler deferred it (deferred: a value, not a
// fault, such as a GC sweep whose tenant is locked), info "job deferred";
// FAILED (failed): error "job dead-lettered"; CANCELLED (cancelled): error
// "job cancelled" (its work was stopped and thrown away); any other
// (other): warn "job left in an unexpected state". Fields: kind, outcome,
// state, attempts; never the payload or the error text.
#ifndef AWC_WORKER_JOB_EVENT_H_
#define AWC_WORKER_JOB_EVENT_H_

#include <cstdint>
#include <string_view>

#include "obs/log.h"
#include "obs/metrics.h"
#include "queue/job.h"

namespace awc::worker {

// The outcome label of a job left in `state`: OutcomeLabel(state), or
// "deferred".
const char* JobOutcome(queue::JobState state, bool deferred);

obs::Event MakeJobEvent(int64_t job_id, std::string_view kind,
                        queue::JobState state, int attempts,
                        bool deferred = false);

// Records one processed job: updates the job instruments (the count by
// kind and `outcome` label, the lag, and the duration unless `duration_secs` is
// negative) under the label `kind`, then emits `event` (with any fields
// the caller added), so that whoever has seen the event finds the job
// counted.
void ReportJob(obs::Metrics& metrics, const obs::Event& event,
               std::string_view kind, std::string_view outcome, double lag_secs,
               double duration_secs);

}  // namespace awc::worker

#endif  // AWC_WORKER_JOB_EVENT_H_
