#include "catalog/audit.h"

namespace awc::catalog {

Status RecordAudit(db::PgConn& conn, const std::string& tenant_id,
                   const std::string& event, const std::string& subject,
                   const std::string& data) {
  return conn
      .Exec(
          "INSERT INTO awc.audit_events (tenant_id, event, subject, data) "
          "VALUES ($1, $2, $3, $4::jsonb)",
          {tenant_id.empty() ? db::Param() : db::Param(tenant_id), event,
           subject, data})
      .status();
}

}  // namespace awc::catalog
