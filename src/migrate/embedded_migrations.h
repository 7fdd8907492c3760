// The migrations of migrations/*.sql, compiled into every binary (the
// generated source is written by embed_migrations.cmake at build time).
#ifndef AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_
#define AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_

#include <vector>

namespace awc::migrate {

struct Migration {
  int version;       // NNNN of the file name
  const char* name;  // file name without ".sql"
  const char* sql;   // the file's text, run as one simple-protocol batch
};

// Every migration of this build, by ascending version.
const std::vector<Migration>& EmbeddedMigrations();

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_
