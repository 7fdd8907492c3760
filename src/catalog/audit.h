// Audit events: awc.audit_events rows written in the caller's transaction,
// so an event exists exactly when the change it describes was committed.
#ifndef AWC_CATALOG_AUDIT_H_
#define AWC_CATALOG_AUDIT_H_

#include <string>

#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

// `data` is a JSON object (text). `tenant_id` may be empty (stored NULL).
Status RecordAudit(db::PgConn& conn, const std::string& tenant_id,
                   const std::string& event, const std::string& subject,
                   const std::string& data);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_AUDIT_H_
