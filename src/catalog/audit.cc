#include "catalog/audit.h"

#include "catalog/catalog_sql.h"

namespace awc::catalog {

Status RecordAudit(db::PgConn& conn, const std::string& tenant_id,
                   const std::string& event, const std::string& subject,
                   const std::string& data) {
  return conn
      .ExecCached(sql::kRecordAudit,
                  {tenant_id.empty() ? db::Param() : db::Param(tenant_id),
                   event, subject, data})
      .status();
}

}  // namespace awc::catalog
