// Which builds may run on a schema (docs/operations.md, "Rolling upgrades").
//
// Each migration is breaking or not (its file's first line, embedded as
// Migration::compatibility). Its compatible_from is the oldest schema
// version a build must know to run on a database that has it: its own
// version when it is breaking, else that of the migration before it (the
// first: its own). The runner records it in awc.schema_migrations, so a build
// can judge migrations it does not know.
#ifndef AWC_MIGRATE_COMPATIBILITY_H_
#define AWC_MIGRATE_COMPATIBILITY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "migrate/embedded_migrations.h"

namespace awc::migrate {

// compatible_from of every migration of `migrations` (ordered by version),
// by version.
std::map<int, int> CompatibleFrom(const std::vector<Migration>& migrations);

// An applied migration as a build reads it from awc.schema_migrations.
struct AppliedCompatibility {
  int version = 0;
  std::string name;
  // NULL when the runner that applied it did not record it: then only
  // builds that know the migration run on it.
  std::optional<int> compatible_from;
};

// The first of `applied` newer than `known` (the newest version a build
// knows) that the build cannot run on, or nullopt when it runs on all.
std::optional<AppliedCompatibility> FirstIncompatible(
    const std::vector<AppliedCompatibility>& applied, int known);

// The oldest schema version a build must know to run on a database that
// has everything of `applied`.
int RequiredVersion(const std::vector<AppliedCompatibility>& applied);

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_COMPATIBILITY_H_
