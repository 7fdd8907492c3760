// The scheduler's settings (docs/configuration.md, "Configuration"), built
// by options/module_options.h; the scheduler never sees config/.
#ifndef AWC_SCHEDULER_SCHEDULER_OPTIONS_H_
#define AWC_SCHEDULER_SCHEDULER_OPTIONS_H_

#include <cstdint>
#include <string>

#include "db/pg.h"

namespace awc::scheduler {

struct SchedulerOptions {
  // AWC_WORKER_ID: the scheduler's session is "<id_base>-scheduler", and
  // its lease holder "<id_base>-scheduler/<host>/<pid>".
  std::string id_base = "awc-worker";
  int64_t lease_secs = 30;  // AWC_SCHEDULER_LEASE_SECS
  // AWC_DATABASE_POOL_MODE: behind a transaction pooler no LISTEN (a
  // changed schedule is seen at the next wake-up) and the lock_timeout is
  // set per transaction (db/pg.h).
  db::PoolMode pool_mode = db::PoolMode::kSession;
  int64_t retention_grace_secs = 86400;      // AWC_RETENTION_GRACE_SECS
  int64_t scrub_interval_secs = 30 * 86400;  // AWC_SCRUB_INTERVAL_SECS
  int64_t scrub_max_per_run = 100;           // AWC_SCRUB_MAX_PER_RUN
  // AWC_SCRUB_BUDGET_MB_PER_SEC in bytes: a host's read budget (0: none),
  // which the scrub planner holds the coverage promise against.
  double scrub_budget_bytes_per_sec = 0;
  int64_t job_retention_secs = 7 * 86400;  // AWC_JOB_RETENTION_SECS
  int64_t dead_letter_retention_secs = 30 * 86400;
  // AWC_DEAD_LETTER_RETENTION_SECS
  int64_t audit_retention_secs =
      365 * 86400;  // AWC_AUDIT_RETENTION_SECS; 0 keeps
  // How often the queue's depth is sampled for the metrics (not a setting:
  // the scrape interval of dashboards, which never query the database).
  double queue_sample_secs = 15;
};

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULER_OPTIONS_H_
