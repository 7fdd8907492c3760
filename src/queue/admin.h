// Operator-side statements on awc.jobs (awcctl): enqueue, list, show,
// cancel and retry. A producer's contract is plain SQL (docs/data-model.md,
// "Data model and producer contract"); Enqueue runs the same INSERT and
// CancelJobs the same state change. The SQL is in admin_sql.h; dead letters
// are in dead_letters.h, counts in queue_stats.h.
#ifndef AWC_QUEUE_ADMIN_H_
#define AWC_QUEUE_ADMIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::queue {

// How a job is enqueued, beyond its kind and payload.
struct EnqueueOptions {
  std::optional<int> max_attempts;  // nullopt: the column's default (5)
  double delay_secs = 0;            // ready this long from now
  std::optional<int> priority;      // nullopt: its kind's (0 to 9)
};

// Inserts a job; `payload` must be JSON text. Returns its id.
Result<int64_t> Enqueue(db::PgConn& conn, const std::string& kind,
                        const std::string& payload,
                        const EnqueueOptions& options = {});

// A job as listings show it; times are ISO 8601 UTC, "" when NULL.
struct JobRow {
  int64_t id = 0;
  std::string kind;
  std::string state;
  int attempts = 0;
  int max_attempts = 0;
  std::string run_at;
  std::string updated_at;
  std::string finished_at;
  std::string locked_by;    // "" when none
  std::string dead_reason;  // "" when none
  std::string last_error;   // "" when none
};

// The listing columns of admin_sql.h (AWC_QUEUE_JOB_ROW), from column 0 of
// row `row`.
JobRow JobRowAt(const db::PgResult& r, int row);

// Newest first, optionally filtered by state and kind ("" for any).
Result<std::vector<JobRow>> ListJobs(db::PgConn& conn, const std::string& state,
                                     const std::string& kind, int limit);

// One attempt that ended in an error (awc.job_errors).
struct AttemptError {
  int attempt = 0;
  std::string at;           // ISO 8601 UTC
  std::string worker;       // "" when unknown
  std::string state;        // what became of the job: PENDING or FAILED
  std::string dead_reason;  // "" unless FAILED
  std::string error;
};

// Everything about one job.
struct JobDetail {
  JobRow row;
  std::string payload;       // JSON text
  std::string result;        // JSON text, "" when none
  int64_t lease_token = 0;   // 0 when none
  std::string locked_until;  // "" when none
  std::string created_at;
  int priority = 0;
  // Its error history, oldest first: at most the last 20 attempts that
  // ended in an error (docs/queue.md, "Error history").
  std::vector<AttemptError> errors;
};

// nullopt when there is no job `id`.
Result<std::optional<JobDetail>> ShowJob(db::PgConn& conn, int64_t id);

// When job `id` was inserted (requested), as the database's clock gives it:
// a timestamptz in text; "" when there is no such job.
Result<std::string> JobCreatedAt(db::PgConn& conn, int64_t id);

// What a verb on named jobs did to one of them.
struct IdOutcome {
  int64_t id = 0;
  bool changed = false;
  std::string state;  // its state before, "" when there is no such job
};

// PENDING and RUNNING jobs of `ids` become CANCELLED; one outcome per
// distinct id, by id.
Result<std::vector<IdOutcome>> CancelJobs(db::PgConn& conn,
                                          const std::vector<int64_t>& ids);

// FAILED and CANCELLED jobs of `ids` go back to PENDING, ready now, with
// their attempts reset and their dead reason cleared.
Result<std::vector<IdOutcome>> RetryJobs(db::PgConn& conn,
                                         const std::vector<int64_t>& ids);

// `ids` as a bigint[] parameter.
std::string IdArray(const std::vector<int64_t>& ids);

}  // namespace awc::queue

#endif  // AWC_QUEUE_ADMIN_H_
