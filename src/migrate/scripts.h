// The SQL scripts awcctl prints for a DBA to review and run with psql: the
// migration bundle (`awcctl migrate --sql`) and the role statements
// (`awcctl roles --sql`); docs/operations.md, "Migrations and roles".
//
// Contract:
//  - SqlBundle() is one transaction: the advisory lock of the runner, the
//    schema and awc.schema_migrations when missing, a guard that refuses the
//    whole bundle if any of its migrations is already applied, then each
//    migration's text followed by its record (version, name, checksum), and
//    the compatible_from of the migrations recorded without it — exactly
//    what Migrate() records, so the daemon accepts the result.
//  - PlainSql() is one migration the same way, but with no transaction and
//    no lock, for runners that apply each file in a transaction of their
//    own and serialise themselves (Flyway, Liquibase, dbmate); its header
//    says what the runner must enforce and what the migration is
//    compatible with.
//  - RolesSql() creates the three roles if missing and gives each what it
//    needs, no more; it can be run again. Role names must pass
//    CheckRoleName(), so they need no quoting.
#ifndef AWC_MIGRATE_SCRIPTS_H_
#define AWC_MIGRATE_SCRIPTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "migrate/embedded_migrations.h"

namespace awc::migrate {

// The bundle of `migrations` (not empty), in their order; `all` is every
// migration of the build (whose compatible_from it records).
std::string SqlBundle(const std::vector<Migration>& migrations,
                      const std::vector<Migration>& all = EmbeddedMigrations());

// One migration of `all` (every migration of the build) as a plain file.
std::string PlainSql(const Migration& m,
                     const std::vector<Migration>& all = EmbeddedMigrations());

// What `m` is compatible with, in a sentence (PlainSql's header, awcctl
// migrate --status).
std::string CompatibilityLine(const Migration& m,
                              const std::vector<Migration>& all);

struct RoleNames {
  std::string owner = "awc_owner";
  std::string migrator = "awc_migrator";
  std::string runtime = "awc_runtime";
};

// 1 to 63 of [a-z0-9_], not starting with a digit, and none of the names
// PostgreSQL reserves: its reserved key words (current_user, user, all,
// ...), "public", "none" and those starting with "pg_". The error quotes
// the name and says why.
Status CheckRoleName(std::string_view name);

// The role statements; kInvalidArgument naming the bad or repeated name.
Result<std::string> RolesSql(const RoleNames& names);

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_SCRIPTS_H_
