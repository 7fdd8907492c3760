// Test-only seam of the embedded migrations (migrate/embedded_migrations.h):
// a test build of the daemon that stands for a later release adds the
// migrations that release would have.
#ifndef AWC_MIGRATE_EMBEDDED_MIGRATIONS_TESTING_H_
#define AWC_MIGRATE_EMBEDDED_MIGRATIONS_TESTING_H_

#include <vector>

#include "migrate/embedded_migrations.h"

namespace awc::migrate {

// The list EmbeddedMigrations() returns. Changed only before anything
// reads it, and only so that it stays ordered by version.
std::vector<Migration>& MutableEmbeddedMigrations();

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_EMBEDDED_MIGRATIONS_TESTING_H_
