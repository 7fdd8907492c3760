#include "migrate/scripts.h"

#include <utility>

#include "digest/sha256.h"
#include "migrate/compatibility.h"
#include "migrate/migrate_sql.h"

namespace awc::migrate {
namespace {

using Values = std::vector<std::pair<std::string_view, std::string>>;

// `tmpl` with every "{key}" of `values` replaced by its value.
std::string Fill(std::string_view tmpl, const Values& values) {
  std::string out(tmpl);
  for (const auto& [key, value] : values) {
    std::string mark = "{" + std::string(key) + "}";
    for (size_t at = out.find(mark); at != std::string::npos;
         at = out.find(mark, at + value.size())) {
      out.replace(at, mark.size(), value);
    }
  }
  return out;
}

// The key words PostgreSQL reserves, each between blanks: those
// pg_get_keywords() marks "reserved" or "reserved (can be function or
// type)" in PostgreSQL 15, and system_user, reserved since 16. Unquoted,
// neither kind parses as a role name in every statement of the role SQL
// (SET ROLE takes neither).
constexpr std::string_view kReservedKeyWords =
    " all analyse analyze and any array as asc asymmetric authorization"
    " binary both case cast check collate collation column concurrently"
    " constraint create cross current_catalog current_date current_role"
    " current_schema current_time current_timestamp current_user default"
    " deferrable desc distinct do else end except false fetch for foreign"
    " freeze from full grant group having ilike in initially inner intersect"
    " into is isnull join lateral leading left like limit localtime"
    " localtimestamp natural not notnull null offset on only or order outer"
    " overlaps placing primary references returning right select"
    " session_user similar some symmetric system_user table tablesample then"
    " to trailing true union unique user using variadic verbose when where"
    " window with"
    " ";

// kCreateMigrationsTable without its surrounding newlines.
std::string MigrationsTable() {
  std::string_view t = sql::kCreateMigrationsTable;
  while (!t.empty() && t.front() == '\n') t.remove_prefix(1);
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  return std::string(t);
}

std::string Bootstrap() {
  return Fill(sql::kBundleBootstrap, {{"migrations_table", MigrationsTable()}});
}

// Each of `migrations`: its text and its record.
std::string Migrations(const std::vector<Migration>& migrations) {
  std::string out;
  for (const Migration& m : migrations) {
    out += Fill(sql::kBundleMigration, {{"name", m.name}});
    out += m.sql;
    out +=
        Fill(sql::kBundleRecord, {{"version", std::to_string(m.version)},
                                  {"name", m.name},
                                  {"checksum", digest::Sha256::HexOf(m.sql)}});
  }
  return out;
}

std::string Guard(const std::vector<Migration>& migrations) {
  std::string versions;
  for (const Migration& m : migrations) {
    versions += (versions.empty() ? "" : ", ") + std::to_string(m.version);
  }
  return Fill(sql::kBundleGuard, {{"versions", versions}});
}

// compatible_from of every migration of `all`, recorded where missing.
std::string RecordCompatibleFrom(const std::vector<Migration>& all) {
  std::string pairs;
  for (const auto& [version, from] : CompatibleFrom(all)) {
    pairs += (pairs.empty() ? "" : ", ") + ("(" + std::to_string(version) +
                                            ", " + std::to_string(from) + ")");
  }
  return Fill(sql::kBundleCompatibleFrom, {{"pairs", pairs}});
}

}  // namespace

std::string SqlBundle(const std::vector<Migration>& migrations,
                      const std::vector<Migration>& all) {
  std::string out = Fill(sql::kBundleBegin, {{"first", migrations.front().name},
                                             {"last", migrations.back().name},
                                             {"lock_key", sql::kLockKey}});
  out += Bootstrap();
  out += Guard(migrations);
  out += Migrations(migrations);
  out += RecordCompatibleFrom(all);
  out += sql::kBundleEnd;
  return out;
}

std::string CompatibilityLine(const Migration& m,
                              const std::vector<Migration>& all) {
  int from = CompatibleFrom(all)[m.version];
  if (m.compatibility == Compatibility::kBreaking) {
    return "It is breaking: builds that do not know it must be stopped "
           "before it is applied.";
  }
  return "Builds that know version " + std::to_string(from) +
         " or later run on it.";
}

std::string PlainSql(const Migration& m, const std::vector<Migration>& all) {
  std::string out =
      Fill(sql::kPlainBegin,
           {{"name", m.name}, {"compatibility", CompatibilityLine(m, all)}});
  out += Bootstrap();
  out += Guard({m});
  out += Migrations({m});
  out += RecordCompatibleFrom(all);
  return out;
}

Status CheckRoleName(std::string_view name) {
  bool ok = !name.empty() && name.size() <= 63 &&
            !(name.front() >= '0' && name.front() <= '9');
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (!ok) {
    return Status::InvalidArgument(
        "\"" + std::string(name) +
        "\" cannot name a role: use 1 to 63 of a-z, 0-9 and _, not starting "
        "with a digit");
  }
  bool reserved = name == "public" || name == "none" ||
                  name.starts_with("pg_") ||
                  kReservedKeyWords.find(" " + std::string(name) + " ") !=
                      std::string_view::npos;
  if (reserved) {
    return Status::InvalidArgument("\"" + std::string(name) +
                                   "\" is reserved in PostgreSQL and cannot "
                                   "name a role");
  }
  return Status::OK();
}

Result<std::string> RolesSql(const RoleNames& names) {
  for (const std::string* n : {&names.owner, &names.migrator, &names.runtime}) {
    AWC_RETURN_IF_ERROR(CheckRoleName(*n));
  }
  if (names.owner == names.migrator || names.owner == names.runtime ||
      names.migrator == names.runtime) {
    return Status::InvalidArgument(
        "the owner, migrator and runtime roles must be three different roles");
  }
  return Fill(sql::kRoles, {{"owner", names.owner},
                            {"migrator", names.migrator},
                            {"runtime", names.runtime},
                            {"migrations_table", MigrationsTable()}});
}

}  // namespace awc::migrate
