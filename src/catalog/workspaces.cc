#include "catalog/workspaces.h"

#include "catalog/audit.h"
#include "catalog/catalog_sql.h"
#include "common/json.h"

namespace awc::catalog {

Result<WorkspaceStep> AdvanceWorkspace(db::PgConn& conn, int64_t id,
                                       int64_t grace_secs) {
  WorkspaceStep step;
  std::string wid = std::to_string(id);
  std::string grace = std::to_string(grace_secs);
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(db::PgResult w,
                         conn.ExecCached(sql::kLockWorkspace, {wid, grace}));
    if (w.rows() == 0) return Status::OK();
    std::string tenant = w.GetString(0, 0);
    step.tenant = tenant;
    Result<WorkspaceState> from = ParseWorkspaceState(w.Get(0, 1));
    if (!from.ok()) return from.status().WithContext("workspace " + wid);
    step.found = true;
    step.from = step.to = *from;
    bool due = w.GetBool(0, 2);
    bool renewed = w.GetBool(0, 3);
    bool grace_over = w.GetBool(0, 4);
    std::string expires_at = w.IsNull(0, 5) ? "" : w.GetString(0, 5);
    std::string grace_end = w.IsNull(0, 6) ? "" : w.GetString(0, 6);
    bool expiring = step.from == WorkspaceState::kExpiring;
    std::string event;
    JsonObject data;
    if (step.from == WorkspaceState::kActive) {
      if (!due) {
        step.next_due = expires_at;
        return Status::OK();
      }
      AWC_RETURN_IF_ERROR(conn.ExecCached(sql::kSetExpiring, {wid}).status());
      step.to = WorkspaceState::kExpiring;
      event = "workspace.expiring";
    } else if (expiring && renewed) {
      AWC_RETURN_IF_ERROR(conn.ExecCached(sql::kSetRenewed, {wid}).status());
      step.to = WorkspaceState::kActive;
      step.next_due = expires_at;
      event = "workspace.renewed";
    } else if (expiring && grace_over) {
      AWC_RETURN_IF_ERROR(conn.ExecCached(sql::kSetExpired, {wid}).status());
      AWC_ASSIGN_OR_RETURN(
          db::PgResult rel,
          conn.ExecCached(sql::kReleaseWorkspaceSnapshots, {wid}));
      step.released = rel.rows();
      step.to = WorkspaceState::kExpired;
      event = "workspace.expired";
      data.Int("released_snapshots", step.released);
    } else {
      step.next_due = expiring ? grace_end : "";
      return Status::OK();
    }
    data.Str("from", WorkspaceStateName(step.from))
        .Str("to", WorkspaceStateName(step.to));
    return RecordAudit(conn, tenant, event, "workspace/" + wid, data.Dump());
  });
  if (!s.ok()) return s;
  return step;
}

Status EnsureTenant(db::PgConn& conn, const std::string& tenant) {
  return conn.Exec(sql::kEnsureTenant, {tenant}).status();
}

Result<bool> WorkspaceOfTenant(db::PgConn& conn, int64_t id,
                               const std::string& tenant) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kWorkspaceOfTenant,
                                                 {std::to_string(id), tenant}));
  return r.rows() == 1;
}

}  // namespace awc::catalog
