// The migrations of migrations/*.sql, compiled into every binary (the
// generated source is written by embed_migrations.cmake at build time).
#ifndef AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_
#define AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_

#include <vector>

namespace awc::migrate {

// Whether builds that do not know a migration keep running on a schema
// that has it (docs/operations.md, "Rolling upgrades"), as its file's first
// line says.
enum class Compatibility {
  kOlderBuildsRun,  // it only adds what older builds ignore
  kBreaking,        // older builds would misbehave on it: they must stop
};

struct Migration {
  int version;       // NNNN of the file name
  const char* name;  // file name without ".sql"
  const char* sql;   // the file's text, run as one simple-protocol batch
  Compatibility compatibility = Compatibility::kOlderBuildsRun;
};

// Every migration of this build, by ascending version.
const std::vector<Migration>& EmbeddedMigrations();

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_EMBEDDED_MIGRATIONS_H_
