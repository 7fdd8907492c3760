#include "queue/queue_stats.h"

#include "queue/queue_sql.h"

namespace awc::queue {

Result<std::vector<KindStats>> JobStatsByKind(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kJobStats));
  std::vector<KindStats> out;
  for (int i = 0; i < r.rows(); ++i) {
    KindStats k;
    k.kind = r.GetString(i, 0);
    k.pending = r.GetInt(i, 1);
    k.running = r.GetInt(i, 2);
    k.completed = r.GetInt(i, 3);
    k.failed = r.GetInt(i, 4);
    k.cancelled = r.GetInt(i, 5);
    if (!r.IsNull(i, 6)) k.oldest_pending_secs = r.GetDouble(i, 6);
    out.push_back(std::move(k));
  }
  return out;
}

Result<std::vector<Depth>> SampleDepth(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kDepthSample));
  std::vector<Depth> out;
  for (int i = 0; i < r.rows(); ++i) {
    Depth d;
    d.kind = r.GetString(i, 0);
    d.state = ParseJobState(r.GetString(i, 1));
    d.count = r.GetInt(i, 2);
    if (!r.IsNull(i, 3)) d.oldest_ready_secs = r.GetDouble(i, 3);
    if (!r.IsNull(i, 4)) d.priority = static_cast<int>(r.GetInt(i, 4));
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<ReasonCount>> DeadLettersByReason(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kDeadLetterStats));
  std::vector<ReasonCount> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({r.GetString(i, 0), r.GetInt(i, 1)});
  }
  return out;
}

}  // namespace awc::queue
