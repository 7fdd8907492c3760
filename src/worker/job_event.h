// The structured event and metrics of one processed job (reference:
// "Structured events", "Metrics").
//
// The event id is job_<id>; level and message follow the reference's table
// from the outcome label (completed: info "job completed"; retried: warn
// "job retried after transient failure"; failed: error "job dead-lettered";
// cancelled: error "job cancelled"; other: warn "job left in an unexpected
// state"). Fields: kind, outcome, state, attempts; never the payload or the
// error text.
#ifndef AWC_WORKER_JOB_EVENT_H_
#define AWC_WORKER_JOB_EVENT_H_

#include <cstdint>
#include <string_view>

#include "obs/log.h"
#include "obs/metrics.h"
#include "queue/job.h"

namespace awc::worker {

obs::Event MakeJobEvent(int64_t job_id, std::string_view kind,
                        queue::JobState state, int attempts);

// Records one processed job: the event (with `extra` fields already added
// by the caller, if any) and the three job instruments.
void ReportJob(obs::Metrics* metrics, const obs::Event& event,
               std::string_view kind, queue::JobState state, double lag_secs,
               double duration_secs);

}  // namespace awc::worker

#endif  // AWC_WORKER_JOB_EVENT_H_
