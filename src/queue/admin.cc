#include "queue/admin.h"

#include "common/numbers.h"
#include "queue/admin_sql.h"

namespace awc::queue {

JobRow JobRowAt(const db::PgResult& r, int i) {
  JobRow row;
  row.id = r.GetInt(i, 0);
  row.kind = r.GetString(i, 1);
  row.state = r.GetString(i, 2);
  row.attempts = static_cast<int>(r.GetInt(i, 3));
  row.max_attempts = static_cast<int>(r.GetInt(i, 4));
  row.run_at = r.GetString(i, 5);
  row.updated_at = r.GetString(i, 6);
  row.finished_at = r.GetString(i, 7);
  row.locked_by = r.GetString(i, 8);
  row.dead_reason = r.GetString(i, 9);
  row.last_error = r.GetString(i, 10);
  return row;
}

namespace {

Result<std::vector<IdOutcome>> EachId(db::PgConn& conn, const char* sql,
                                      const std::vector<int64_t>& ids) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql, {IdArray(ids)}));
  std::vector<IdOutcome> out;
  for (int i = 0; i < r.rows(); ++i) {
    IdOutcome o{r.GetInt(i, 0), r.GetBool(i, 1), r.GetString(i, 2)};
    if (!out.empty() && out.back().id == o.id) continue;  // named twice
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

std::string IdArray(const std::vector<int64_t>& ids) {
  std::string out = "{";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(ids[i]);
  }
  return out + "}";
}

Result<int64_t> Enqueue(db::PgConn& conn, const std::string& kind,
                        const std::string& payload,
                        const EnqueueOptions& options) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kEnqueue, {kind, payload,
                                db::NumberOrNull(options.max_attempts),
                                SecondsText(options.delay_secs),
                                db::NumberOrNull(options.priority)}));
  return r.GetInt(0, 0);
}

Result<std::vector<JobRow>> ListJobs(db::PgConn& conn, const std::string& state,
                                     const std::string& kind, int limit) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kListJobs, {state, kind, std::to_string(limit)}));
  std::vector<JobRow> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(JobRowAt(r, i));
  return out;
}

Result<std::optional<JobDetail>> ShowJob(db::PgConn& conn, int64_t id) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kShowJob, {std::to_string(id)}));
  if (r.rows() == 0) return std::optional<JobDetail>();
  JobDetail d;
  d.row = JobRowAt(r, 0);
  d.payload = r.GetString(0, 11);
  d.result = r.GetString(0, 12);
  d.lease_token = r.GetInt(0, 13);
  d.locked_until = r.GetString(0, 14);
  d.created_at = r.GetString(0, 15);
  d.priority = static_cast<int>(r.GetInt(0, 16));
  AWC_ASSIGN_OR_RETURN(db::PgResult e,
                       conn.Exec(sql::kJobErrors, {std::to_string(id)}));
  for (int i = 0; i < e.rows(); ++i) {
    d.errors.push_back({static_cast<int>(e.GetInt(i, 0)), e.GetString(i, 1),
                        e.GetString(i, 2), e.GetString(i, 3), e.GetString(i, 4),
                        e.GetString(i, 5)});
  }
  return std::optional<JobDetail>(std::move(d));
}

Result<std::string> JobCreatedAt(db::PgConn& conn, int64_t id) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.ExecCached(sql::kJobCreatedAt,
                                                       {std::to_string(id)}));
  return r.rows() == 0 ? std::string() : r.GetString(0, 0);
}

Result<std::vector<IdOutcome>> CancelJobs(db::PgConn& conn,
                                          const std::vector<int64_t>& ids) {
  return EachId(conn, sql::kCancelJobs, ids);
}

Result<std::vector<IdOutcome>> RetryJobs(db::PgConn& conn,
                                         const std::vector<int64_t>& ids) {
  return EachId(conn, sql::kRetryJobs, ids);
}

}  // namespace awc::queue
