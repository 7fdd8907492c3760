// Applies and inspects the schema migrations (startup step 3, `awcctl
// migrate`, `awcctl health`).
//
// Contract:
//  - Migrate() first reads the applied set; when nothing is pending it
//    returns without a lock and without any statement that needs a CREATE
//    privilege, so a role that may only read and write rows can run it on a
//    current schema.
//  - Otherwise all pending migrations are applied in one transaction that
//    first takes a transaction-scoped advisory lock, so concurrent runners
//    serialise and converge: the second finds nothing pending. The schema
//    and the bookkeeping table are created only when missing.
//  - Each applied migration is recorded in awc.schema_migrations with the
//    SHA-256 of its text and its compatible_from (migrate/compatibility.h),
//    which the run also records for migrations applied before that column
//    existed. A recorded checksum that differs from this build's file
//    refuses the whole run with kFailedPrecondition and changes nothing.
//  - A schema newer than this build (migrations it does not know) is
//    accepted when each of those is compatible with what the build knows
//    (SchemaState::newer lists them), and refused with kFailedPrecondition
//    naming the first that is not ("upgrade this host").
//  - A pending migration that builds of live workers cannot run on (their
//    heartbeats say what they know; MigrateOptions::live_workers) is not
//    applied: kFailedPrecondition naming those workers, unless
//    MigrateOptions::allow_incompatible.
//  - While another runner holds the lock, `while_waiting` (when given) is
//    called about every second with the seconds waited so far, so a
//    service manager can be told that startup is still making progress.
//  - Inspect(), List() and CheckCurrent() only read.
#ifndef AWC_MIGRATE_MIGRATOR_H_
#define AWC_MIGRATE_MIGRATOR_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "db/pg.h"
#include "migrate/embedded_migrations.h"

namespace awc::migrate {

struct SchemaState {
  int current_version = 0;           // highest applied version, 0 for none
  int latest_version = 0;            // highest version this build knows
  std::vector<std::string> pending;  // names of unapplied migrations
  // Applied migrations newer than this build, all compatible with it (a
  // later release's, on a fleet being upgraded host by host).
  std::vector<std::string> newer;
};

using WaitFn = std::function<void(double waited_secs)>;

// A live worker as the migration gate sees it (its heartbeat).
struct LiveWorker {
  std::string host;
  std::string worker_id;
  std::string build;  // "" for a build from before heartbeats said it
  // The newest migration its build knows; nullopt for a build from before
  // heartbeats said it, which knows exactly the schema it runs on.
  std::optional<int> schema_version;
};

struct MigrateOptions {
  // Called about every second while another runner holds the lock.
  WaitFn while_waiting;
  // The live workers (read in the migrating transaction), for the gate on
  // migrations their builds cannot run on; none when empty.
  std::function<Result<std::vector<LiveWorker>>(db::PgConn&)> live_workers;
  // Applies such migrations all the same (awcctl migrate
  // --allow-incompatible): the operator stops or upgrades those workers.
  bool allow_incompatible = false;
};

// Applies what is pending; returns the names of the migrations applied now.
Result<std::vector<std::string>> Migrate(
    db::PgConn& conn,
    const std::vector<Migration>& migrations = EmbeddedMigrations(),
    const MigrateOptions& options = {});

// Reads the applied set and runs the same checks as Migrate, applying
// nothing.
Result<SchemaState> Inspect(
    db::PgConn& conn,
    const std::vector<Migration>& migrations = EmbeddedMigrations());

// OK when nothing is pending. Otherwise kFailedPrecondition: "schema is at
// version X, this binary needs Y: run awcctl migrate" when behind (or "schema
// lacks migrations A, B: run awcctl migrate" when only earlier ones are
// missing), or Inspect()'s error for a newer or changed schema.
Status CheckCurrent(db::PgConn& conn, const std::vector<Migration>& migrations =
                                          EmbeddedMigrations());

// One migration as `awcctl migrate --status` shows it.
struct MigrationStatus {
  enum class State {
    kApplied,  // recorded, same checksum
    kPending,  // in this build, not recorded
    kChanged,  // recorded with another checksum than this build's file
    kUnknown,  // recorded, not in this build (a newer schema)
  };
  int version = 0;
  std::string name;
  State state = State::kPending;
  std::string checksum;    // this build's; the recorded one for kUnknown
  std::string applied_at;  // ISO 8601 UTC, "" when not applied
  // The oldest version a build must know to run on a schema that has it
  // (migrate/compatibility.h): this build's reckoning; the recorded one for
  // kUnknown (0 when none was recorded).
  int compatible_from = 0;
};
// What makes a database unfit for this binary, or "" when it is fit: at
// this binary's version, or newer and compatible with it. `version` is
// kSchemaVersion's value, "<newest applied>:<oldest version a build must
// know>". Unfit: older (awcctl migrate has not run since an upgrade), newer
// and incompatible (another host runs a release this one cannot run
// beside), or unreadable.
std::string SchemaVersionProblem(
    std::string_view version,
    const std::vector<Migration>& migrations = EmbeddedMigrations());

const char* MigrationStateName(MigrationStatus::State state);  // "applied"…

// Every migration of this build and every recorded one, by version; never
// an error for a newer or changed schema (that is what it shows).
Result<std::vector<MigrationStatus>> List(
    db::PgConn& conn,
    const std::vector<Migration>& migrations = EmbeddedMigrations());

}  // namespace awc::migrate

#endif  // AWC_MIGRATE_MIGRATOR_H_
