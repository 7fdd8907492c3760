// Workspaces: the TTL state machine of workspace_expire (docs/handlers.md,
// "Handlers"); the SQL is in catalog_sql.h.
//
//   ACTIVE   --expires_at <= now-->                 EXPIRING (expiring_since)
//   EXPIRING --expires_at moved to the future/NULL-> ACTIVE   (renewed)
//   EXPIRING --EXPIRING for >= grace-->             EXPIRED  (its snapshots
//                                                             RELEASED)
// Each step runs in one transaction with the workspace row locked and its
// audit event; otherwise nothing changes and the step says when the next
// transition is due.
#ifndef AWC_CATALOG_WORKSPACES_H_
#define AWC_CATALOG_WORKSPACES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/states.h"
#include "common/status.h"
#include "db/pg.h"

namespace awc::catalog {

struct WorkspaceStep {
  bool found = false;
  std::string tenant;
  WorkspaceState from = WorkspaceState::kActive;  // state before
  WorkspaceState to = WorkspaceState::kActive;    // after (== from: unchanged)
  std::string next_due;  // ISO timestamp of the next possible step, or ""
  int64_t released = 0;  // snapshots released on EXPIRED
};

Result<WorkspaceStep> AdvanceWorkspace(db::PgConn& conn, int64_t id,
                                       int64_t grace_secs);

// Creates the tenant if it does not exist yet.
Status EnsureTenant(db::PgConn& conn, const std::string& tenant);

// Whether workspace `id` exists and belongs to `tenant`.
Result<bool> WorkspaceOfTenant(db::PgConn& conn, int64_t id,
                               const std::string& tenant);

}  // namespace awc::catalog

#endif  // AWC_CATALOG_WORKSPACES_H_
