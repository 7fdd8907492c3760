// Every SQL statement of the migration runner, the SQL bundle and the role
// statements, in one place (the migrations themselves are the files of
// migrations/, embedded at build time).
//
// Values travel only as $n parameters in the statements the runner sends.
// The bundle (`awcctl migrate --sql`) and the role statements (`awcctl roles
// --sql`) are scripts for psql, not statements sent by awc-worker: their
// templates take only values this build made or checked — versions, file
// names of the form NNNN_[a-z0-9_]+, hex checksums, and role names of the
// form [a-z_][a-z0-9_]* — substituted where {braces} stand.
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

// $1 lock key. kLock without waiting: true when taken.
inline constexpr const char* kTryLock = R"sql(
SELECT pg_try_advisory_xact_lock($1::bigint)
)sql";

// Whether the schema awc exists. CREATE SCHEMA IF NOT EXISTS needs the
// CREATE privilege on the database even when the schema is there, so it
// runs only when this says no.
inline constexpr const char* kSchemaExists = R"sql(
SELECT to_regnamespace('awc') IS NOT NULL
)sql";

inline constexpr const char* kCreateSchema = "CREATE SCHEMA awc";

// The table of applied migrations.
inline constexpr const char* kCreateMigrationsTable = R"sql(
CREATE TABLE IF NOT EXISTS awc.schema_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)
)sql";

// Whether awc.schema_migrations exists (Inspect must not create it).
inline constexpr const char* kTableExists = R"sql(
SELECT to_regclass('awc.schema_migrations') IS NOT NULL
)sql";

// A column of awc.schema_migrations that a schema before migration 0021
// lacks, read as NULL there: compatible_from.
#define AWC_MIGRATE_COMPATIBLE_FROM(row) \
  "(to_jsonb(" row ")->>'compatible_from')::int"

// Returns (version, name, checksum, applied_at ISO 8601 UTC,
// compatible_from or NULL) of every applied migration.
inline constexpr const char* kApplied = R"sql(
SELECT version, name, checksum,
       to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       )sql" AWC_MIGRATE_COMPATIBLE_FROM("m") R"sql(
  FROM awc.schema_migrations m ORDER BY version
)sql";

// "<newest applied version>:<the oldest version a build must know to run
// on the schema>" ("0:0" for none), which the master's database probe
// judges against the binary's (SchemaVersionProblem). A migration recorded
// without compatible_from requires its own version.
inline constexpr const char* kSchemaVersion = R"sql(
SELECT coalesce(max(version), 0) || ':' ||
       coalesce(max(coalesce()sql" AWC_MIGRATE_COMPATIBLE_FROM("m") R"sql(,
                             version)), 0)
  FROM awc.schema_migrations m
)sql";

#undef AWC_MIGRATE_COMPATIBLE_FROM

// Whether awc.schema_migrations has compatible_from (migration 0021).
inline constexpr const char* kHasCompatibleFrom = R"sql(
SELECT EXISTS (SELECT 1 FROM pg_attribute
                WHERE attrelid = 'awc.schema_migrations'::regclass
                  AND attname = 'compatible_from' AND NOT attisdropped)
)sql";

// $1 versions, $2 their compatible_from (int[] each). Records them where
// nothing is recorded yet.
inline constexpr const char* kRecordCompatibleFrom = R"sql(
UPDATE awc.schema_migrations m SET compatible_from = c.compatible_from
  FROM unnest($1::int[], $2::int[]) AS c(version, compatible_from)
 WHERE m.version = c.version AND m.compatible_from IS NULL
)sql";

// $1 version, $2 name, $3 checksum (hex SHA-256 of the file's text).
inline constexpr const char* kRecordApplied = R"sql(
INSERT INTO awc.schema_migrations (version, name, checksum)
VALUES ($1, $2, $3)
)sql";

// --- The SQL bundle (awcctl migrate --sql): one transaction for psql -------

// Opens the bundle; {first} and {last} are file names, {lock_key} is
// kLockKey. kBundleBootstrap follows.
inline constexpr const char* kBundleBegin =
    R"sql(-- awc-worker schema migrations {first} to {last}.
-- Review, then apply as the migrator role:
--   psql -v ON_ERROR_STOP=1 -f THIS_FILE postgresql://MIGRATOR@HOST/DB
-- Everything runs in one transaction: an error changes nothing. Each
-- migration is recorded in awc.schema_migrations with its checksum, so
-- awc-worker and awcctl accept the schema as theirs.
BEGIN;
SELECT pg_advisory_xact_lock({lock_key});
)sql";

// Opens one migration for a runner that applies each file in a transaction
// of its own and keeps its own history (awcctl migrate --extract-to, --sql
// --no-transaction). {name} is its file name, {compatibility} what it is
// compatible with. kBundleBootstrap follows.
inline constexpr const char* kPlainBegin =
    R"sql(-- awc-worker schema migration {name}, for a runner that applies each
-- file in a transaction of its own (Flyway, Liquibase, dbmate). This file
-- takes no lock and opens no transaction: the runner applies the files in
-- version order, one runner at a time, and applies none that builds of
-- live workers cannot run on (awc-worker(8), UPGRADING). {compatibility}
-- It is recorded in awc.schema_migrations with its checksum, so awc-worker
-- and awcctl accept the schema as theirs.
)sql";

// The schema and the table of applied migrations, each when missing;
// {migrations_table} is kCreateMigrationsTable.
inline constexpr const char* kBundleBootstrap = R"sql(DO $awc_bootstrap$
BEGIN
  IF to_regnamespace('awc') IS NULL THEN
    CREATE SCHEMA awc;
  END IF;
END
$awc_bootstrap$;
{migrations_table};
)sql";

// Refuses the bundle when one of its migrations is already applied;
// {versions} is a comma-separated list of integers.
inline constexpr const char* kBundleGuard = R"sql(DO $awc_guard$
DECLARE
  done text;
BEGIN
  SELECT string_agg(name, ', ' ORDER BY version) INTO done
    FROM awc.schema_migrations WHERE version IN ({versions});
  IF done IS NOT NULL THEN
    RAISE EXCEPTION 'already applied: %; generate the bundle with awcctl migrate --sql --pending', done;
  END IF;
END
$awc_guard$;
)sql";

// Before each migration's text; {name} is its file name.
inline constexpr const char* kBundleMigration = R"sql(
-- {name}
)sql";

// After each migration's text.
inline constexpr const char* kBundleRecord = R"sql(
INSERT INTO awc.schema_migrations (version, name, checksum)
VALUES ({version}, '{name}', '{checksum}');
)sql";

// Records compatible_from ({pairs}: "(version, compatible_from), ...") for
// the migrations recorded without it, once the column exists (migration
// 0021), as Migrate() does.
inline constexpr const char* kBundleCompatibleFrom = R"sql(DO $awc_compat$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_attribute
              WHERE attrelid = 'awc.schema_migrations'::regclass
                AND attname = 'compatible_from' AND NOT attisdropped) THEN
    EXECUTE 'UPDATE awc.schema_migrations m
                SET compatible_from = c.compatible_from
               FROM (VALUES {pairs}) AS c(version, compatible_from)
              WHERE m.version = c.version AND m.compatible_from IS NULL';
  END IF;
END
$awc_compat$;
)sql";

inline constexpr const char* kBundleEnd = R"sql(
COMMIT;
)sql";

// --- Roles (awcctl roles --sql): owner, migrator, runtime ------------------

// {owner}, {migrator}, {runtime} are role names, {migrations_table} is
// kCreateMigrationsTable. Run once by a superuser
// (or a role with CREATEROLE that owns the database), before the first
// migration; running it again changes nothing.
inline constexpr const char* kRoles =
    R"sql(-- awc-worker roles: {owner} owns the schema and never logs in,
-- {migrator} applies migrations as {owner}, {runtime} runs the daemon and
-- the awcctl verbs that do not migrate: it reads and writes rows, never DDL.
-- Run as a superuser on the database awc-worker uses, then give the two
-- login roles their passwords (\password {migrator}, \password {runtime}).
BEGIN;
DO $awc_roles$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{owner}') THEN
    CREATE ROLE {owner} NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{migrator}') THEN
    CREATE ROLE {migrator} LOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{runtime}') THEN
    CREATE ROLE {runtime} LOGIN;
  END IF;
END
$awc_roles$;

-- The migrator's sessions act as the owner, so what it creates is the
-- owner's.
GRANT {owner} TO {migrator};
ALTER ROLE {migrator} SET role = '{owner}';

-- The schema and the table of applied migrations belong to the owner.
CREATE SCHEMA IF NOT EXISTS awc AUTHORIZATION {owner};
ALTER SCHEMA awc OWNER TO {owner};
SET LOCAL ROLE {owner};
{migrations_table};
RESET ROLE;

-- The runtime: rows of the tables the migrations create, now and later;
-- no CREATE, no TRUNCATE, no ownership; the migration history read-only.
REVOKE ALL ON SCHEMA awc FROM PUBLIC;
GRANT USAGE ON SCHEMA awc TO {runtime};
ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA awc
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {runtime};
ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA awc
  GRANT USAGE, SELECT ON SEQUENCES TO {runtime};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA awc TO {runtime};
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA awc TO {runtime};
REVOKE INSERT, UPDATE, DELETE ON awc.schema_migrations FROM {runtime};
COMMIT;
)sql";

}  // namespace awc::migrate::sql

#endif  // AWC_MIGRATE_MIGRATE_SQL_H_
