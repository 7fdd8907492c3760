// awcctl roles --sql: the statements that create the owner, migrator and
// runtime roles (awcctl(1), "roles"; docs/operations.md, "Migrations and
// roles").
#include <string>
#include <utility>

#include "cli/invocation.h"
#include "cli/verbs.h"
#include "migrate/scripts.h"

namespace awc::cli {
namespace {

int RunRoles(Invocation& inv) {
  if (!inv.args().Has("sql")) {
    return inv.Usage("roles prints the role statements: pass --sql");
  }
  migrate::RoleNames names;
  // Each name is checked under its option, so the error names the option.
  for (auto [option, name] : {std::pair{"owner", &names.owner},
                              std::pair{"migrator", &names.migrator},
                              std::pair{"runtime", &names.runtime}}) {
    if (!inv.args().Has(option)) continue;
    *name = inv.args().Get(option);
    Status s = migrate::CheckRoleName(*name);
    if (!s.ok()) {
      return inv.Usage("--" + std::string(option) + ": " + s.message());
    }
  }
  Result<std::string> sql = migrate::RolesSql(names);
  if (!sql.ok()) return inv.Usage(sql.status().message());
  inv.Print(*sql);
  return kExitOk;
}

}  // namespace

void AddRolesCommands(std::vector<Command>* out) {
  Command c{
      "roles",
      "--sql [--owner NAME] [--migrator NAME] [--runtime NAME]",
      "print the SQL that creates the owner, migrator and runtime roles",
      "The owner (NOLOGIN) owns the schema awc; the migrator applies\n"
      "migrations acting as the owner; the runtime runs awc-worker with\n"
      "AWC_MIGRATE=check and every awcctl verb but migrate: it reads and\n"
      "writes rows and can change no table. Run the output once with psql\n"
      "as a superuser, before the first migration, then set the two login\n"
      "roles' passwords. Nothing is connected to.\n",
      {{"sql", nullptr, "print the statements"},
       {"owner", "NAME", "the owner role (default awc_owner)"},
       {"migrator", "NAME", "the migrator role (default awc_migrator)"},
       {"runtime", "NAME", "the runtime role (default awc_runtime)"}}};
  c.run = RunRoles;
  out->push_back(c);
}

}  // namespace awc::cli
