#include "queue/dead_letters.h"

#include <cstdlib>

#include "common/numbers.h"
#include "queue/admin_sql.h"

namespace awc::queue {
namespace {

db::Params FilterParams(const DeadLetterFilter& f) {
  return {f.ids.empty() ? db::Param() : db::Param(IdArray(f.ids)), f.kind,
          f.reason,
          f.older_than_secs ? db::Param(SecondsText(*f.older_than_secs))
                            : db::Param()};
}

// "{1,2,3}" -> 1, 2, 3.
std::vector<int64_t> ParseIdArray(std::string_view text) {
  std::vector<int64_t> out;
  std::string s(text);
  for (size_t at = 1; at < s.size();) {
    size_t end = s.find_first_of(",}", at);
    if (end == std::string::npos || end == at) break;
    out.push_back(strtoll(s.c_str() + at, nullptr, 10));
    at = end + 1;
  }
  return out;
}

Result<Changed> Change(db::PgConn& conn, const char* sql,
                       const DeadLetterFilter& filter) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql, FilterParams(filter)));
  return Changed{r.GetInt(0, 0), ParseIdArray(r.Get(0, 1))};
}

}  // namespace

Result<std::vector<JobRow>> ListDeadLetters(db::PgConn& conn,
                                            const DeadLetterFilter& filter,
                                            int limit) {
  db::Params params = FilterParams(filter);
  params.push_back(std::to_string(limit));
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kListDeadLetters, params));
  std::vector<JobRow> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(JobRowAt(r, i));
  return out;
}

Result<int64_t> CountDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kCountDeadLetters, FilterParams(filter)));
  return r.GetInt(0, 0);
}

Result<Changed> RetryDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter) {
  return Change(conn, sql::kRetryDeadLetters, filter);
}

Result<Changed> PurgeDeadLetters(db::PgConn& conn,
                                 const DeadLetterFilter& filter) {
  return Change(conn, sql::kPurgeDeadLetters, filter);
}

}  // namespace awc::queue
