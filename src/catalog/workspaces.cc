#include "catalog/workspaces.h"

#include "catalog/audit.h"
#include "common/json.h"

namespace awc::catalog {

Result<WorkspaceStep> AdvanceWorkspace(db::PgConn& conn, int64_t id,
                                       int64_t grace_secs) {
  WorkspaceStep step;
  std::string wid = std::to_string(id);
  std::string grace = std::to_string(grace_secs);
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(
        db::PgResult w,
        conn.Exec(
            "SELECT tenant_id, state, expires_at IS NOT NULL AND expires_at "
            "<= now(), expires_at IS NULL OR expires_at > now(), "
            "expiring_since + make_interval(secs => $2::float8) <= now(), "
            "to_char(expires_at AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
            "to_char((expiring_since + make_interval(secs => $2::float8)) AT "
            "TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
            "FROM awc.workspaces WHERE id = $1 FOR UPDATE",
            {wid, grace}));
    if (w.rows() == 0) return Status::OK();
    step.found = true;
    std::string tenant = w.GetString(0, 0);
    step.from = step.to = w.GetString(0, 1);
    bool due = w.GetBool(0, 2);
    bool renewed = w.GetBool(0, 3);
    bool grace_over = w.GetBool(0, 4);
    std::string expires_at = w.IsNull(0, 5) ? "" : w.GetString(0, 5);
    std::string grace_end = w.IsNull(0, 6) ? "" : w.GetString(0, 6);
    std::string event;
    JsonObject data;
    if (step.from == "ACTIVE") {
      if (!due) {
        step.next_due = expires_at;
        return Status::OK();
      }
      AWC_RETURN_IF_ERROR(
          conn.Exec("UPDATE awc.workspaces SET state = 'EXPIRING', "
                    "expiring_since = now() WHERE id = $1",
                    {wid})
              .status());
      step.to = "EXPIRING";
      event = "workspace.expiring";
    } else if (step.from == "EXPIRING" && renewed) {
      AWC_RETURN_IF_ERROR(
          conn.Exec("UPDATE awc.workspaces SET state = 'ACTIVE', "
                    "expiring_since = NULL WHERE id = $1",
                    {wid})
              .status());
      step.to = "ACTIVE";
      step.next_due = expires_at;
      event = "workspace.renewed";
    } else if (step.from == "EXPIRING" && grace_over) {
      AWC_RETURN_IF_ERROR(
          conn.Exec("UPDATE awc.workspaces SET state = 'EXPIRED', expired_at "
                    "= now() WHERE id = $1",
                    {wid})
              .status());
      AWC_ASSIGN_OR_RETURN(
          db::PgResult rel,
          conn.Exec("UPDATE awc.snapshots SET state = 'RELEASED', released_at "
                    "= now() WHERE workspace_id = $1 AND state <> 'RELEASED' "
                    "RETURNING id",
                    {wid}));
      step.released = rel.rows();
      step.to = "EXPIRED";
      event = "workspace.expired";
      data.Int("released_snapshots", step.released);
    } else {
      step.next_due = step.from == "EXPIRING" ? grace_end : "";
      return Status::OK();
    }
    data.Str("from", step.from).Str("to", step.to);
    return RecordAudit(conn, tenant, event, "workspace/" + wid, data.Dump());
  });
  if (!s.ok()) return s;
  return step;
}

Status EnsureTenant(db::PgConn& conn, const std::string& tenant) {
  return conn
      .Exec("INSERT INTO awc.tenants (id) VALUES ($1) ON CONFLICT DO NOTHING",
            {tenant})
      .status();
}

Result<bool> WorkspaceOfTenant(db::PgConn& conn, int64_t id,
                               const std::string& tenant) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec("SELECT 1 FROM awc.workspaces WHERE id = $1 AND tenant_id = $2",
                {std::to_string(id), tenant}));
  return r.rows() == 1;
}

}  // namespace awc::catalog
