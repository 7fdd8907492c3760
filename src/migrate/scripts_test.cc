#include "migrate/scripts.h"

#include <gtest/gtest.h>

#include <sstream>

#include "digest/sha256.h"

namespace awc::migrate {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(SqlBundleTest, OneTransactionGuardedEachMigrationRecordedWithItsChecksum) {
  std::vector<Migration> ms = {{3, "0003_a", "CREATE TABLE awc.a (x int);\n"},
                               {5, "0005_b", "CREATE TABLE awc.b (x int);\n"}};
  std::string sql = SqlBundle(ms);
  EXPECT_TRUE(
      sql.starts_with("-- awc-worker schema migrations 0003_a to "
                      "0005_b.\n"))
      << sql;
  EXPECT_EQ(Count(sql, "BEGIN;"), 1u);
  EXPECT_EQ(Count(sql, "\nCOMMIT;\n"), 1u);
  EXPECT_NE(sql.find("pg_advisory_xact_lock(6383251660122681191)"),
            std::string::npos);
  EXPECT_NE(sql.find("WHERE version IN (3, 5)"), std::string::npos) << sql;
  EXPECT_NE(sql.find("VALUES (3, '0003_a', '" +
                     digest::Sha256::HexOf(ms[0].sql) + "');"),
            std::string::npos);
  EXPECT_NE(sql.find("VALUES (5, '0005_b', '" +
                     digest::Sha256::HexOf(ms[1].sql) + "');"),
            std::string::npos);
  // In order: guard, a, its record, b, its record, commit.
  size_t guard = sql.find("already applied");
  size_t a = sql.find(ms[0].sql), rec_a = sql.find("VALUES (3,");
  size_t b = sql.find(ms[1].sql), rec_b = sql.find("VALUES (5,");
  EXPECT_LT(guard, a);
  EXPECT_LT(a, rec_a);
  EXPECT_LT(rec_a, b);
  EXPECT_LT(b, rec_b);
  EXPECT_LT(rec_b, sql.find("COMMIT;"));
  EXPECT_EQ(sql.find('{'), std::string::npos) << "an unfilled placeholder";
}

TEST(SqlBundleTest, TheEmbeddedMigrationsMakeABundle) {
  std::string sql = SqlBundle(EmbeddedMigrations());
  for (const Migration& m : EmbeddedMigrations()) {
    EXPECT_NE(sql.find(m.sql), std::string::npos) << m.name;
  }
}

// A plain file for a runner that wraps each file in a transaction of its
// own: none here, nor a lock; still guarded, recorded and saying what the
// migration is compatible with.
TEST(PlainSqlTest, NoTransactionNoLockButGuardedAndRecorded) {
  std::vector<Migration> all = {
      {1, "0001_a", "CREATE TABLE awc.a (x int);\n"},
      {2, "0002_b", "CREATE TABLE awc.b (x int);\n"},
      {3, "0003_c", "DROP TABLE awc.a;\n", Compatibility::kBreaking}};
  std::string sql = PlainSql(all[1], all);
  EXPECT_TRUE(sql.starts_with("-- awc-worker schema migration 0002_b, "))
      << sql;
  EXPECT_EQ(Count(sql, "BEGIN;"), 0u) << sql;
  EXPECT_EQ(Count(sql, "COMMIT;"), 0u) << sql;
  EXPECT_EQ(Count(sql, "pg_advisory"), 0u) << sql;
  EXPECT_NE(sql.find("Builds that know version 1 or later run on it."),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("WHERE version IN (2)"), std::string::npos) << sql;
  EXPECT_NE(sql.find("VALUES (2, '0002_b', '" +
                     digest::Sha256::HexOf(all[1].sql) + "');"),
            std::string::npos);
  EXPECT_NE(sql.find("(VALUES (1, 1), (2, 1), (3, 3))"), std::string::npos)
      << sql;
  EXPECT_EQ(sql.find('{'), std::string::npos) << "an unfilled placeholder";
  EXPECT_NE(PlainSql(all[2], all).find("It is breaking"), std::string::npos);
}

TEST(RolesSqlTest, NamesAreSubstitutedEverywhere) {
  Result<std::string> sql = RolesSql({"o1", "m1", "r1"});
  ASSERT_TRUE(sql.ok()) << sql.status().ToString();
  EXPECT_NE(sql->find("CREATE ROLE o1 NOLOGIN;"), std::string::npos);
  EXPECT_NE(sql->find("CREATE ROLE m1 LOGIN;"), std::string::npos);
  EXPECT_NE(sql->find("CREATE ROLE r1 LOGIN;"), std::string::npos);
  EXPECT_NE(sql->find("ALTER ROLE m1 SET role = 'o1';"), std::string::npos);
  EXPECT_NE(sql->find("REVOKE INSERT, UPDATE, DELETE ON awc.schema_migrations "
                      "FROM r1;"),
            std::string::npos);
  EXPECT_EQ(sql->find("awc_owner"), std::string::npos);
  EXPECT_EQ(sql->find("{"), std::string::npos) << *sql;
  // Nothing grants the runtime a way to change the schema.
  std::istringstream lines(*sql);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("GRANT") == std::string::npos) continue;
    if (line.find(" TO r1") == std::string::npos &&
        line.find("GRANT SELECT") == std::string::npos &&
        line.find("GRANT USAGE, SELECT") == std::string::npos) {
      continue;
    }
    EXPECT_EQ(line.find("CREATE"), std::string::npos) << line;
    EXPECT_EQ(line.find("TRUNCATE"), std::string::npos) << line;
    EXPECT_EQ(line.find("ALL PRIVILEGES"), std::string::npos) << line;
  }
}

TEST(RolesSqlTest, BadNamesAreRefused) {
  for (const char* bad :
       {"", "Owner", "1abc", "a-b", "a b", "x;drop", "pg_owner", "public"}) {
    EXPECT_FALSE(CheckRoleName(bad).ok()) << bad;
    EXPECT_FALSE(RolesSql({bad, "m", "r"}).ok()) << bad;
  }
  EXPECT_FALSE(CheckRoleName(std::string(64, 'a')).ok());
  EXPECT_TRUE(CheckRoleName(std::string(63, 'a')).ok());
  EXPECT_TRUE(CheckRoleName("_awc9").ok());
  Result<std::string> same = RolesSql({"a", "a", "r"});
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.status().message().find("three different roles"),
            std::string::npos);
}

TEST(RolesSqlTest, WordsPostgreSqlReservesAreRefused) {
  // Key words PostgreSQL reserves (the role SQL would not parse), and the
  // names it refuses for a role.
  for (const char* reserved :
       {"current_user", "session_user", "current_role", "user", "all", "select",
        "system_user", "left", "authorization", "none", "public", "pg_x",
        "pg_"}) {
    Status s = CheckRoleName(reserved);
    ASSERT_FALSE(s.ok()) << reserved;
    EXPECT_EQ(s.message(), "\"" + std::string(reserved) +
                               "\" is reserved in PostgreSQL and cannot name "
                               "a role")
        << reserved;
    EXPECT_FALSE(RolesSql({"o", "m", reserved}).ok()) << reserved;
  }
  // Unreserved key words and words that only contain a reserved one name a
  // role like any identifier.
  for (const char* fine :
       {"owner", "role", "name", "current_users", "user_1", "public_ro",
        "xpg_a", "publication", "nonexistent"}) {
    EXPECT_TRUE(CheckRoleName(fine).ok()) << fine;
  }
}

}  // namespace
}  // namespace awc::migrate
