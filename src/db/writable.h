// Sessions that cannot write: finding the server that takes writes, and
// telling a session that landed elsewhere (docs/operations.md,
// "Read-only sessions").
//
// A database URL can lead to a server that refuses every write: a standby
// that DNS still names after a failover, the first server of a multi-host
// URL, a database or role with default_transaction_read_only on, a
// primary an operator made read-only. For the daemon such a session is on
// the wrong server, not a failure of a statement: its owner drops it and
// connects again with backoff, and is not ready while it lasts.
//
// Contract:
//  - RequireWritable() asks the session, in one round trip right after it
//    connected, whether it can write (sql::kSessionReadOnly): OK, or
//    kTransient with a message that starts with kReadOnlySession and says
//    why (ReadOnlyReason).
//  - A statement refused with SQLSTATE 25006 (read_only_sql_transaction)
//    on a connection that was not made read-only on purpose (SetReadOnly)
//    is the same news, learnt later: PgConn returns kTransient with a
//    message that starts with kReadOnlySession, and counts the connection
//    as broken (db/pg.h), so that its owner replaces it.
//  - IsReadOnlySession() tells both apart from every other error.
//  - NeedsReadWriteTarget(): a connection string that names several hosts
//    and no target_session_attrs makes libpq stop at the first server that
//    accepts, a standby as readily as the primary, and every reconnection
//    would land there again; PgConn::Connect and the master's probe then
//    add target_session_attrs=read-write, so libpq tries the hosts in turn
//    until one takes writes. A target_session_attrs the string sets is
//    kept as it is.
#ifndef AWC_DB_WRITABLE_H_
#define AWC_DB_WRITABLE_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "db/pg.h"

namespace awc::db {

// The start of every message of a session found read-only.
inline constexpr std::string_view kReadOnlySession =
    "database session is read-only";

// Why a session whose server is `in_recovery` (pg_is_in_recovery()) and
// whose default_transaction_read_only is `read_only_default` cannot
// write, as the end of a sentence; "" when it can.
std::string ReadOnlyReason(bool in_recovery, bool read_only_default);

// The answer of sql::kSessionReadOnly (its two text values, "t"/"f" and
// "on"/"off"): OK when the session can write, else kTransient
// "database session is read-only: <reason>".
Status SessionWritable(std::string_view in_recovery,
                       std::string_view read_only_default);

// Runs sql::kSessionReadOnly on `conn` and judges its answer
// (SessionWritable); a failed round trip is that error.
Status RequireWritable(PgConn& conn);

// Whether `s` says that a session could not write (see the contract).
bool IsReadOnlySession(const Status& s);

// Whether `conninfo` (a URL or key=value string) names several hosts and
// no target_session_attrs, so that target_session_attrs=read-write must
// be added (see the contract). False for a string libpq cannot parse.
bool NeedsReadWriteTarget(const std::string& conninfo);

}  // namespace awc::db

#endif  // AWC_DB_WRITABLE_H_
