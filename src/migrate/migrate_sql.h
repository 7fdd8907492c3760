// Every SQL statement of the migration runner, in one place (the migrations
// themselves are the files of migrations/, embedded at build time).
//
// Values travel only as $n parameters. The statements run once per start
// or `awcctl migrate` and are not prepared.
#ifndef AWC_MIGRATE_MIGRATE_SQL_H_
#define AWC_MIGRATE_MIGRATE_SQL_H_

namespace awc::migrate::sql {

// Key of the advisory lock that serialises migration runners ("awc-mig"),
// passed as $1 to kLock.
inline constexpr const char* kLockKey = "6383251660122681191";

// $1 lock key. Held until the migrating transaction ends.
inline constexpr const char* kLock = R"sql(
SELECT pg_advisory_xact_lock($1::bigint)
)sql";

// The schema and the table of applied migrations; a batch of statements run
// without parameters, first in the migrating transaction.
inline constexpr const char* kBootstrap = R"sql(
CREATE SCHEMA IF NOT EXISTS awc;
CREATE TABLE IF NOT EXISTS awc.schema_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
)sql";

// Whether awc.schema_migrations exists (Inspect must not create it).
inline constexpr const char* kTableExists = R"sql(
SELECT to_regclass('awc.schema_migrations') IS NOT NULL
)sql";

// Returns (version, name, checksum) of every applied migration.
inline constexpr const char* kApplied = R"sql(
SELECT version, name, checksum FROM awc.schema_migrations ORDER BY version
)sql";

// $1 version, $2 name, $3 checksum (hex SHA-256 of the file's text).
inline constexpr const char* kRecordApplied = R"sql(
INSERT INTO awc.schema_migrations (version, name, checksum)
VALUES ($1, $2, $3)
)sql";

}  // namespace awc::migrate::sql

#endif  // AWC_MIGRATE_MIGRATE_SQL_H_
