// Applies the schema migrations (startup step 3 and `awcctl migrate`).
//
// Contract:
//  - All pending migrations are applied in one transaction that first takes
//    a transaction-scoped advisory lock, so concurrent runners serialise and
//    converge: the second finds nothing pending.
//  - Each applied migration is recorded in awc.schema_migrations with the
//    SHA-256 of its text. A recorded checksum that differs from this build's
//    file, or a recorded version this build does not know (a newer schema),
//    refuses the whole run with kFailedPrecondition and changes nothing.
#ifndef AWC_MIGRATE_MIGRATOR_H_
#define AWC_MIGRATE_MIGRATOR_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "migrate/embedded_migrations.h"

namespace awc::migrate {

struct SchemaState {
  int current_version = 0;           // highest applied version, 0 for none
  int latest_version = 0;            // highest version this build knows
  std::vector<std::string> pending;  // names of unapplied migrations
};

// Applies what is pending; returns the names of the migrations applied now.
Result<std::vector<std::string>> Migrate(
    db::PgConn& conn,
    const std::vector<Migration>& migrations = EmbeddedMigrations());

// Reads the applied set and runs the same checks as Migrate, applying
// nothing (for health checks).
Result<SchemaState> Inspect(
    db::PgConn& conn,
    const std::vector<Migration>& migrations = EmbeddedMigrations());

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_MIGRATOR_H_
