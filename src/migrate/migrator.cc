#include "migrate/migrator.h"

#include <algorithm>
#include <map>

#include "common/env.h"
#include "common/numbers.h"
#include "digest/sha256.h"
#include "migrate/compatibility.h"
#include "migrate/migrate_sql.h"
#include "obs/log.h"

namespace awc::migrate {
namespace {

struct Applied {
  std::string name;
  std::string checksum;
  std::string applied_at;
  std::optional<int> compatible_from;
};
using AppliedSet = std::map<int, Applied>;

Result<bool> TableExists(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kTableExists));
  return r.GetBool(0, 0);
}

// awc.schema_migrations by version; empty when the table does not exist.
Result<std::map<int, Applied>> ReadApplied(db::PgConn& conn) {
  std::map<int, Applied> applied;
  AWC_ASSIGN_OR_RETURN(bool exists, TableExists(conn));
  if (!exists) return applied;
  AWC_ASSIGN_OR_RETURN(db::PgResult rows, conn.Exec(sql::kApplied));
  for (int r = 0; r < rows.rows(); ++r) {
    Applied& a = applied[static_cast<int>(rows.GetInt(r, 0))];
    a.name = rows.GetString(r, 1);
    a.checksum = rows.GetString(r, 2);
    a.applied_at = rows.GetString(r, 3);
    if (!rows.IsNull(r, 4)) {
      a.compatible_from = static_cast<int>(rows.GetInt(r, 4));
    }
  }
  return applied;
}

// The applied migrations newer than `known`, as compatibility.h judges them.
std::vector<AppliedCompatibility> NewerThan(const AppliedSet& applied,
                                            int known) {
  std::vector<AppliedCompatibility> out;
  for (auto it = applied.upper_bound(known); it != applied.end(); ++it) {
    out.push_back({it->first, it->second.name, it->second.compatible_from});
  }
  return out;
}

// Checks the applied set against `migrations`.
Result<SchemaState> Check(const std::map<int, Applied>& applied,
                          const std::vector<Migration>& migrations) {
  SchemaState state;
  state.latest_version = migrations.empty() ? 0 : migrations.back().version;
  if (!applied.empty()) state.current_version = applied.rbegin()->first;
  std::vector<AppliedCompatibility> newer =
      NewerThan(applied, state.latest_version);
  if (std::optional<AppliedCompatibility> bad =
          FirstIncompatible(newer, state.latest_version)) {
    return Status::FailedPrecondition(
        "database schema is at version " +
        std::to_string(state.current_version) + ", newer than this build (" +
        std::to_string(state.latest_version) + "), and its migration " +
        bad->name + " needs a build that knows version " +
        std::to_string(bad->compatible_from.value_or(bad->version)) +
        " or later: upgrade this host (docs/operations.md, \"Rolling "
        "upgrades\")");
  }
  for (const AppliedCompatibility& a : newer) state.newer.push_back(a.name);
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

// Creates what the first migration needs, each only when missing.
Status Bootstrap(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult schema, conn.Exec(sql::kSchemaExists));
  if (!schema.GetBool(0, 0)) {
    AWC_RETURN_IF_ERROR(conn.Exec(sql::kCreateSchema).status());
  }
  AWC_ASSIGN_OR_RETURN(bool table, TableExists(conn));
  if (!table) {
    AWC_RETURN_IF_ERROR(conn.Exec(sql::kCreateMigrationsTable).status());
  }
  return Status::OK();
}

// Records compatible_from for every migration of this build applied
// without it (those before migration 0021, and those a bundle applied),
// once the column exists.
Status RecordCompatibleFrom(db::PgConn& conn,
                            const std::vector<Migration>& migrations) {
  AWC_ASSIGN_OR_RETURN(db::PgResult has, conn.Exec(sql::kHasCompatibleFrom));
  if (!has.GetBool(0, 0)) return Status::OK();
  std::vector<uint64_t> versions, from;
  for (const auto& [version, cf] : CompatibleFrom(migrations)) {
    versions.push_back(static_cast<uint64_t>(version));
    from.push_back(static_cast<uint64_t>(cf));
  }
  return conn
      .Exec(sql::kRecordCompatibleFrom,
            {db::ArrayLiteral(versions), db::ArrayLiteral(from)})
      .status();
}

// The gate: kFailedPrecondition naming the live workers whose builds cannot
// run on the schema once `pending` is applied.
Status RefuseForLiveWorkers(const std::vector<Migration>& migrations,
                            const std::vector<std::string>& pending,
                            int current_version,
                            const std::vector<LiveWorker>& live) {
  std::map<int, int> from = CompatibleFrom(migrations);
  int required = 0;
  std::string needing;
  for (const Migration& m : migrations) {
    if (std::find(pending.begin(), pending.end(), m.name) == pending.end()) {
      continue;
    }
    if (from[m.version] > required) {
      required = from[m.version];
      needing = m.name;
    }
  }
  std::string names;
  int count = 0;
  for (const LiveWorker& w : live) {
    // A build from before heartbeats said what it knows runs on exactly
    // the schema it found.
    int knows = w.schema_version.value_or(current_version);
    if (knows >= required) continue;
    if (++count > 5) continue;
    names += (names.empty() ? "" : ", ") + w.worker_id + " on " + w.host +
             " (" + (w.build.empty() ? "an older build" : w.build) +
             ", knows version " + std::to_string(knows) + ")";
  }
  if (count == 0) return Status::OK();
  if (count > 5) names += " and " + std::to_string(count - 5) + " more";
  return Status::FailedPrecondition(
      "migration " + needing +
      " is not compatible with builds that know "
      "versions before " +
      std::to_string(required) +
      ", and live workers "
      "run such builds: " +
      names +
      "; upgrade them first, or apply it with "
      "awcctl migrate --allow-incompatible once they are stopped");
}

// Takes the runners' lock; with `while_waiting`, polls for it so the
// caller hears how long it has waited.
Status TakeLock(db::PgConn& conn, const WaitFn& while_waiting) {
  if (!while_waiting) return conn.Exec(sql::kLock, {sql::kLockKey}).status();
  constexpr double kPollSecs = 1.0;
  Env* env = Env::Default();
  double start = env->NowMonotonic();
  for (;;) {
    AWC_ASSIGN_OR_RETURN(db::PgResult r,
                         conn.Exec(sql::kTryLock, {sql::kLockKey}));
    if (r.GetBool(0, 0)) return Status::OK();
    while_waiting(env->NowMonotonic() - start);
    env->SleepFor(kPollSecs);
  }
}

}  // namespace

Result<std::vector<std::string>> Migrate(
    db::PgConn& conn, const std::vector<Migration>& migrations,
    const MigrateOptions& options) {
  // Nothing pending: nothing to lock, nothing to create.
  AWC_ASSIGN_OR_RETURN(SchemaState before, Inspect(conn, migrations));
  if (before.pending.empty()) return std::vector<std::string>();
  std::vector<std::string> done;
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(TakeLock(conn, options.while_waiting));
    AWC_RETURN_IF_ERROR(Bootstrap(conn));
    AWC_ASSIGN_OR_RETURN(AppliedSet applied, ReadApplied(conn));
    AWC_ASSIGN_OR_RETURN(SchemaState state, Check(applied, migrations));
    if (options.live_workers && !options.allow_incompatible &&
        !state.pending.empty()) {
      AWC_ASSIGN_OR_RETURN(std::vector<LiveWorker> live,
                           options.live_workers(conn));
      AWC_RETURN_IF_ERROR(RefuseForLiveWorkers(migrations, state.pending,
                                               state.current_version, live));
    }
    for (const Migration& m : migrations) {
      if (std::find(state.pending.begin(), state.pending.end(), m.name) ==
          state.pending.end()) {
        continue;
      }
      Status applied_now = conn.Exec(m.sql).status();
      if (!applied_now.ok()) {
        return applied_now.WithContext("migration " + std::string(m.name));
      }
      AWC_RETURN_IF_ERROR(
          conn.Exec(sql::kRecordApplied, {std::to_string(m.version), m.name,
                                          digest::Sha256::HexOf(m.sql)})
              .status());
      done.push_back(m.name);
    }
    return RecordCompatibleFrom(conn, migrations);
  });
  if (!s.ok()) return s;
  for (const std::string& name : done) {
    obs::Info("migrate", "migration applied").Str("migration", name).Emit();
  }
  return done;
}

Result<SchemaState> Inspect(db::PgConn& conn,
                            const std::vector<Migration>& migrations) {
  AWC_ASSIGN_OR_RETURN(AppliedSet applied, ReadApplied(conn));
  return Check(applied, migrations);
}

namespace {

// What a schema behind the binary is told, at startup and by /readyz.
std::string Behind(int64_t current, int64_t latest) {
  return "schema is at version " + std::to_string(current) +
         ", this binary needs " + std::to_string(latest) +
         ": run awcctl migrate";
}

}  // namespace

Status CheckCurrent(db::PgConn& conn,
                    const std::vector<Migration>& migrations) {
  AWC_ASSIGN_OR_RETURN(SchemaState state, Inspect(conn, migrations));
  if (state.pending.empty()) return Status::OK();
  if (state.current_version < state.latest_version) {
    return Status::FailedPrecondition(
        Behind(state.current_version, state.latest_version));
  }
  std::string names;
  for (const std::string& name : state.pending) {
    names += (names.empty() ? "" : ", ") + name;
  }
  return Status::FailedPrecondition("schema lacks migrations " + names +
                                    ": run awcctl migrate");
}

std::string SchemaVersionProblem(std::string_view version,
                                 const std::vector<Migration>& migrations) {
  int64_t latest = migrations.empty() ? 0 : migrations.back().version;
  size_t colon = version.find(':');
  Result<int64_t> current = ParseInt64(version.substr(0, colon));
  Result<int64_t> required =
      colon == std::string_view::npos
          ? Result<int64_t>(Status::InvalidArgument("no requirement"))
          : ParseInt64(version.substr(colon + 1));
  if (!current.ok() || !required.ok()) {
    return "database schema version unreadable";
  }
  if (*current < latest) return "database " + Behind(*current, latest);
  // Newer, and compatible with this binary: a later release's migrations,
  // on a fleet being upgraded host by host.
  if (*required <= latest) return "";
  return "database schema is at version " + std::to_string(*current) +
         ", newer than this binary (" + std::to_string(latest) +
         ") and not compatible with it (it needs a build that knows version " +
         std::to_string(*required) + "): upgrade this host";
}

const char* MigrationStateName(MigrationStatus::State state) {
  switch (state) {
    case MigrationStatus::State::kApplied:
      return "applied";
    case MigrationStatus::State::kPending:
      return "pending";
    case MigrationStatus::State::kChanged:
      return "changed";
    case MigrationStatus::State::kUnknown:
      break;
  }
  return "unknown";
}

Result<std::vector<MigrationStatus>> List(
    db::PgConn& conn, const std::vector<Migration>& migrations) {
  AWC_ASSIGN_OR_RETURN(AppliedSet applied, ReadApplied(conn));
  std::map<int, int> from = CompatibleFrom(migrations);
  std::map<int, MigrationStatus> out;
  for (const Migration& m : migrations) {
    MigrationStatus st;
    st.version = m.version;
    st.name = m.name;
    st.checksum = digest::Sha256::HexOf(m.sql);
    st.compatible_from = from[m.version];
    auto it = applied.find(m.version);
    if (it != applied.end()) {
      st.state = it->second.checksum == st.checksum
                     ? MigrationStatus::State::kApplied
                     : MigrationStatus::State::kChanged;
      st.applied_at = it->second.applied_at;
    }
    out[m.version] = std::move(st);
  }
  for (const auto& [version, a] : applied) {
    if (out.count(version) > 0) continue;
    out[version] = {version,    a.name,       MigrationStatus::State::kUnknown,
                    a.checksum, a.applied_at, a.compatible_from.value_or(0)};
  }
  std::vector<MigrationStatus> list;
  for (auto& [version, st] : out) list.push_back(std::move(st));
  return list;
}

}  // namespace awc::migrate
