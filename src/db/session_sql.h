// The SQL the db module runs itself, on any session (docs/operations.md,
// "Read-only sessions"). Values travel only as $n parameters.
#ifndef AWC_DB_SESSION_SQL_H_
#define AWC_DB_SESSION_SQL_H_

namespace awc::db::sql {

// No parameters. Whether this session can write: (pg_is_in_recovery()
// "t"/"f", default_transaction_read_only "on"/"off"). The default, not
// transaction_read_only: a statement of a connection made read-only on
// purpose (PgConn::SetReadOnly) runs in a READ ONLY transaction of its
// own, whose transaction_read_only is always on.
inline constexpr const char* kSessionReadOnly = R"sql(
SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only')
)sql";

}  // namespace awc::db::sql

#endif  // AWC_DB_SESSION_SQL_H_
