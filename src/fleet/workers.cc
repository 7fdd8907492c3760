#include "fleet/workers.h"

#include "common/json.h"
#include "common/numbers.h"
#include "fleet/fleet_sql.h"

namespace awc::fleet {

const char* BeatStateName(BeatState state) {
  switch (state) {
    case BeatState::kIdle:
      return "idle";
    case BeatState::kBusy:
      return "busy";
    case BeatState::kStopped:
      break;
  }
  return "stopped";
}

Status Beat(db::PgConn& conn, const WorkerIdentity& me, BeatState state,
            int64_t job_id, std::string_view job_kind,
            std::string_view progress) {
  bool job = state == BeatState::kBusy && job_id > 0;
  return conn
      .ExecCached(sql::kBeat,
                  {me.host, std::to_string(me.pid), me.worker_id,
                   std::to_string(me.slot), SecondsText(me.started_at),
                   BeatStateName(state),
                   job ? db::Param(std::to_string(job_id)) : db::Param(),
                   job ? db::Param(std::string(job_kind)) : db::Param(),
                   job && !progress.empty() ? db::Param(std::string(progress))
                                            : db::Param(),
                   me.build, std::to_string(me.schema_version),
                   db::ArrayLiteral(me.kinds)})
      .status();
}

Result<std::vector<WorkerRow>> LiveWorkers(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult exists,
                       conn.Exec(sql::kWorkersTableExists));
  if (!exists.GetBool(0, 0)) return std::vector<WorkerRow>();
  AWC_ASSIGN_OR_RETURN(std::vector<WorkerRow> rows, ListWorkers(conn));
  std::erase_if(rows, [](const WorkerRow& w) {
    return !w.fresh || w.state == BeatStateName(BeatState::kStopped);
  });
  return rows;
}

Result<std::vector<std::string>> BuildsHandling(db::PgConn& conn,
                                                const std::string& kind) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.ExecCached(sql::kBuildsHandling, {kind, SecondsText(kFreshSecs)}));
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.GetString(i, 0));
  return out;
}

Result<int64_t> Prune(db::PgConn& conn, const WorkerIdentity& me) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kPrune, {me.host, std::to_string(me.pid), me.worker_id,
                              SecondsText(kForgetSecs)}));
  return r.Affected();
}

Result<std::vector<WorkerRow>> ListWorkers(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kListWorkers, {SecondsText(kFreshSecs)}));
  std::vector<WorkerRow> out;
  for (int i = 0; i < r.rows(); ++i) {
    WorkerRow w;
    w.host = r.GetString(i, 0);
    w.slot = static_cast<int>(r.GetInt(i, 1));
    w.worker_id = r.GetString(i, 2);
    w.pid = r.GetInt(i, 3);
    w.state = r.GetString(i, 4);
    w.job_id = r.GetInt(i, 5);
    w.job_kind = r.GetString(i, 6);
    w.started_at = r.GetString(i, 7);
    w.heartbeat_age = r.GetDouble(i, 8);
    w.fresh = r.GetBool(i, 9);
    w.progress = r.GetString(i, 10);
    w.build = r.GetString(i, 11);
    w.schema_version = static_cast<int>(r.GetInt(i, 12));
    if (Result<JsonPtr> doc = ParseJson(w.progress);
        !w.progress.empty() && doc.ok()) {
      const char* line = json_string_value(json_object_get(doc->get(), "line"));
      if (line != nullptr) w.progress_line = line;
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace awc::fleet
