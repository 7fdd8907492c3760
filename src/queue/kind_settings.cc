#include "queue/kind_settings.h"

#include "queue/kind_settings_sql.h"

namespace awc::queue {
namespace {

std::optional<int> IntOrNone(const db::PgResult& r, int row, int col) {
  if (r.IsNull(row, col)) return std::nullopt;
  return static_cast<int>(r.GetInt(row, col));
}

db::Param Flag(bool b) { return db::Param(b ? "true" : "false"); }

// AWC_PAUSED_KIND_ROW from column `col` of row `row`.
PausedKind PausedKindAt(const db::PgResult& r, int row, int col = 0) {
  return PausedKind{r.GetString(row, col), r.GetString(row, col + 1),
                    r.GetString(row, col + 2), r.GetString(row, col + 3)};
}

// The pause of `kind` as it is now, if any.
Result<std::optional<PausedKind>> PauseOf(db::PgConn& conn,
                                          const std::string& kind) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kPausedKind, {kind}));
  if (r.rows() == 0) return std::optional<PausedKind>();
  return std::optional<PausedKind>(PausedKindAt(r, 0));
}

}  // namespace

Result<KindChange> PauseKind(db::PgConn& conn, const std::string& kind,
                             const std::string& by, const std::string& reason) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kPauseKind, {kind, by, reason}));
  if (r.rows() == 1) return KindChange{true, PausedKindAt(r, 0)};
  AWC_ASSIGN_OR_RETURN(std::optional<PausedKind> kept, PauseOf(conn, kind));
  return KindChange{false, std::move(kept)};
}

Result<KindChange> ResumeKind(db::PgConn& conn, const std::string& kind) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kResumeKind, {kind}));
  if (r.rows() == 1) return KindChange{true, PausedKindAt(r, 0)};
  return KindChange{};
}

Result<std::vector<PausedKind>> PausedKinds(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kPausedKinds));
  std::vector<PausedKind> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(PausedKindAt(r, i));
  return out;
}

Result<bool> KindHasJobs(db::PgConn& conn, const std::string& kind) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kKindHasJobs, {kind}));
  return r.GetBool(0, 0);
}

Result<PriorityChange> SetKindPriority(db::PgConn& conn,
                                       const std::string& kind, int priority,
                                       const std::string& by) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kSetKindPriority, {kind, std::to_string(priority), by}));
  return PriorityChange{static_cast<int>(r.GetInt(0, 0)), r.GetInt(0, 1)};
}

Result<KindLimits> SetKindLimits(db::PgConn& conn, const std::string& kind,
                                 const KindLimits& change,
                                 const std::string& by) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kSetKindLimits,
                {kind, Flag(change.set_host), db::NumberOrNull(change.host),
                 Flag(change.set_fleet), db::NumberOrNull(change.fleet), by}));
  return KindLimits{true, IntOrNone(r, 0, 0), true, IntOrNone(r, 0, 1)};
}

Result<std::vector<KindStatus>> ListKinds(
    db::PgConn& conn, const std::vector<std::string_view>& builtin) {
  std::vector<std::string> names(builtin.begin(), builtin.end());
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kListKinds, {db::ArrayLiteral(names)}));
  std::vector<KindStatus> out;
  for (int i = 0; i < r.rows(); ++i) {
    KindStatus k;
    k.kind = r.GetString(i, 0);
    k.builtin = r.GetBool(i, 1);
    if (r.GetBool(i, 2)) {
      k.pause = PausedKind{k.kind, r.GetString(i, 3), r.GetString(i, 4),
                           r.GetString(i, 5)};
    }
    k.pending = r.GetInt(i, 6);
    k.running = r.GetInt(i, 7);
    k.priority = static_cast<int>(r.GetInt(i, 8));
    k.host_limit = IntOrNone(r, i, 9);
    k.fleet_limit = IntOrNone(r, i, 10);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace awc::queue
