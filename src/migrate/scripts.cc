#include "migrate/scripts.h"

#include <utility>

#include "digest/sha256.h"
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

// kCreateMigrationsTable without its surrounding newlines.
std::string MigrationsTable() {
  std::string_view t = sql::kCreateMigrationsTable;
  while (!t.empty() && t.front() == '\n') t.remove_prefix(1);
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  return std::string(t);
}

}  // namespace

std::string SqlBundle(const std::vector<Migration>& migrations) {
  std::string versions;
  for (const Migration& m : migrations) {
    versions += (versions.empty() ? "" : ", ") + std::to_string(m.version);
  }
  std::string out =
      Fill(sql::kBundleBegin, {{"first", migrations.front().name},
                               {"last", migrations.back().name},
                               {"lock_key", sql::kLockKey},
                               {"migrations_table", MigrationsTable()}});
  out += Fill(sql::kBundleGuard, {{"versions", versions}});
  for (const Migration& m : migrations) {
    out += Fill(sql::kBundleMigration, {{"name", m.name}});
    out += m.sql;
    out +=
        Fill(sql::kBundleRecord, {{"version", std::to_string(m.version)},
                                  {"name", m.name},
                                  {"checksum", digest::Sha256::HexOf(m.sql)}});
  }
  out += sql::kBundleEnd;
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
        "role name \"" + std::string(name) +
        "\" must be 1 to 63 of a-z, 0-9 and _, not starting with a digit");
  }
  if (name == "public" || name.starts_with("pg_")) {
    return Status::InvalidArgument("role name \"" + std::string(name) +
                                   "\" is reserved by PostgreSQL");
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
