// Operator-side queue statements (awcctl): enqueue and list. A producer's
// contract is plain SQL (docs/ARCHITECTURE.md, "Data model and producer
// contract"); Enqueue runs the same INSERT. The SQL is in queue_sql.h.
#ifndef AWC_QUEUE_ADMIN_H_
#define AWC_QUEUE_ADMIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::queue {

// Inserts a job; `payload` must be JSON text. Returns its id.
Result<int64_t> Enqueue(db::PgConn& conn, const std::string& kind,
                        const std::string& payload,
                        std::optional<int> max_attempts, double delay_secs);

struct JobRow {
  int64_t id = 0;
  std::string kind;
  std::string state;
  int attempts = 0;
  int max_attempts = 0;
  std::string run_at;      // ISO 8601, UTC
  std::string updated_at;  // ISO 8601, UTC
  std::string locked_by;   // "" when none
  std::string last_error;  // "" when none
};

// Newest first, optionally filtered by state and kind.
Result<std::vector<JobRow>> ListJobs(db::PgConn& conn, const std::string& state,
                                     const std::string& kind, int limit);

}  // namespace awc::queue

#endif  // AWC_QUEUE_ADMIN_H_
