#include "migrate/migrator.h"

#include <algorithm>
#include <map>

#include "digest/sha256.h"
#include "migrate/migrate_sql.h"
#include "obs/log.h"

namespace awc::migrate {
namespace {

struct Applied {
  std::string name;
  std::string checksum;
};

// Reads awc.schema_migrations (absent table = nothing applied) and checks it
// against `migrations`.
Result<SchemaState> Check(db::PgConn& conn,
                          const std::vector<Migration>& migrations,
                          bool table_exists) {
  std::map<int, Applied> applied;
  if (table_exists) {
    AWC_ASSIGN_OR_RETURN(db::PgResult rows, conn.Exec(sql::kApplied));
    for (int r = 0; r < rows.rows(); ++r) {
      applied[static_cast<int>(rows.GetInt(r, 0))] = {rows.GetString(r, 1),
                                                      rows.GetString(r, 2)};
    }
  }
  SchemaState state;
  state.latest_version = migrations.empty() ? 0 : migrations.back().version;
  if (!applied.empty()) state.current_version = applied.rbegin()->first;
  if (state.current_version > state.latest_version) {
    return Status::FailedPrecondition("database schema is at version " +
                                      std::to_string(state.current_version) +
                                      ", newer than this build knows (" +
                                      std::to_string(state.latest_version) +
                                      "); run a newer awc-worker or awcctl");
  }
  for (const Migration& m : migrations) {
    auto it = applied.find(m.version);
    if (it == applied.end()) {
      state.pending.push_back(m.name);
      continue;
    }
    if (it->second.checksum != digest::Sha256::HexOf(m.sql)) {
      return Status::FailedPrecondition(
          "migration " + std::string(m.name) +
          " was changed after it was applied (its checksum differs from the "
          "one recorded in awc.schema_migrations); restore the original file");
    }
  }
  return state;
}

Result<bool> TableExists(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kTableExists));
  return r.GetBool(0, 0);
}

}  // namespace

Result<std::vector<std::string>> Migrate(
    db::PgConn& conn, const std::vector<Migration>& migrations) {
  std::vector<std::string> done;
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(conn.Exec(sql::kLock, {sql::kLockKey}).status());
    AWC_RETURN_IF_ERROR(conn.Exec(sql::kBootstrap).status());
    AWC_ASSIGN_OR_RETURN(SchemaState state, Check(conn, migrations, true));
    for (const Migration& m : migrations) {
      if (std::find(state.pending.begin(), state.pending.end(), m.name) ==
          state.pending.end()) {
        continue;
      }
      Status applied = conn.Exec(m.sql).status();
      if (!applied.ok()) {
        return applied.WithContext("migration " + std::string(m.name));
      }
      AWC_RETURN_IF_ERROR(
          conn.Exec(sql::kRecordApplied, {std::to_string(m.version), m.name,
                                          digest::Sha256::HexOf(m.sql)})
              .status());
      done.push_back(m.name);
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  for (const std::string& name : done) {
    obs::Info("migrate", "migration applied").Str("migration", name).Emit();
  }
  return done;
}

Result<SchemaState> Inspect(db::PgConn& conn,
                            const std::vector<Migration>& migrations) {
  AWC_ASSIGN_OR_RETURN(bool exists, TableExists(conn));
  return Check(conn, migrations, exists);
}

}  // namespace awc::migrate
