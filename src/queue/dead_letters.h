// Dead letters (FAILED jobs) for awcctl dlq: list, count, retry, purge, all
// by one selection. The SQL is in admin_sql.h (AWC_QUEUE_DLQ_MATCH).
#ifndef AWC_QUEUE_DEAD_LETTERS_H_
#define AWC_QUEUE_DEAD_LETTERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "queue/admin.h"

namespace awc::queue {

// Which dead letters a verb acts on; every field narrows the selection, an
// empty one selects them all.
struct DeadLetterFilter {
  std::vector<int64_t> ids;               // empty: any
  std::string kind;                       // "": any
  std::string reason;                     // "": any (DeadReasonName)
  std::optional<double> older_than_secs;  // finished longer ago than this
};

// Newest first, at most `limit`.
Result<std::vector<JobRow>> ListDeadLetters(db::PgConn& conn,
                                            const DeadLetterFilter& filter,
                                            int limit);
Result<int64_t> CountDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter);

// What a bulk verb changed: how many, and which when the filter named ids.
struct Changed {
  int64_t count = 0;
  std::vector<int64_t> ids;
};

// The selected dead letters go back to PENDING (queue::RetryJobs' reset).
Result<Changed> RetryDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter);
// The selected dead letters are deleted.
Result<Changed> PurgeDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter);

}  // namespace awc::queue

#endif  // AWC_QUEUE_DEAD_LETTERS_H_
