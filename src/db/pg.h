// A thin, owning wrapper around one libpq connection.
//
// Contract:
//  - Errors come back as Status, never as exceptions. A lost connection and
//    the SQLSTATEs that mean "try again" (class 08, 40001, 40P01, 53xxx,
//    57P0x) are kTransient. A statement refused for the values it carries
//    (class 22 data exception, 23 integrity constraint violation, 54 limit
//    exceeded) is kInvalidArgument: the same statement will fail again; its
//    message is the server's primary message only (the detail quotes the
//    values). Other server errors are kInternal. Every message names the
//    SQLSTATE, is one line, is scrubbed of secrets, and never includes the
//    connection string.
//  - Parameters travel as text through PQexecParams/PQexecPrepared; there is
//    no string interpolation of values anywhere.
//  - The connection's PoolMode says what session state it may keep
//    (docs/operations.md, "Connection poolers"). kSession (a direct
//    connection, or a pooler in session mode) prepares statements and
//    LISTENs. kTransaction (a pooler in transaction mode, which hands the
//    server connection to another client after each transaction) keeps
//    nothing beyond a transaction: Prepare() only remembers the text,
//    ExecPrepared(), ExecCached() and ExecPipeline() run it unnamed
//    (PQexecParams), and Listen() does nothing. Every caller runs the same
//    code in both modes.
//  - Whatever the mode, SetReadOnly() and SetSessionSetting() never change
//    the server session: they apply to each transaction (see there). A
//    pool mode can be wrong (a client left at kSession behind a transaction
//    pooler), and a session setting would then outlive the client on a
//    server connection that other clients get next.
//  - A statement refused with SQLSTATE 25006 (read_only_sql_transaction)
//    on a connection not made read-only by SetReadOnly() means the session
//    is on a server that cannot write (db/writable.h): kTransient, with a
//    message that starts with kReadOnlySession, and the connection counts
//    as broken from then on, so that its owner replaces it.
//  - Connect() adds target_session_attrs=read-write to a connection string
//    that names several hosts and no target_session_attrs
//    (db/writable.h, NeedsReadWriteTarget).
//  - In kSession mode, a prepared statement the server does not have
//    (SQLSTATE 26000) or already has (42P05) means a transaction pooler is
//    in between: kFailedPrecondition, whose message names
//    AWC_DATABASE_POOL_MODE.
//  - Not thread-safe; each worker process owns its connection.
#ifndef AWC_DB_PG_H_
#define AWC_DB_PG_H_

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"

namespace awc::db {

using Param = std::optional<std::string>;  // nullopt is SQL NULL
using Params = std::vector<Param>;

// A number as a parameter, SQL NULL for none.
template <typename T>
Param NumberOrNull(const std::optional<T>& n) {
  return n ? Param(std::to_string(*n)) : Param();
}

// What the connection may keep between transactions (AWC_DATABASE_POOL_MODE;
// see the contract above).
enum class PoolMode { kSession, kTransaction };

// Owns a PGresult; moves, never copies.
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* res) : res_(res) {}
  PgResult(PgResult&& other) noexcept : res_(other.res_) {
    other.res_ = nullptr;
  }
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int rows() const { return res_ ? PQntuples(res_) : 0; }
  int cols() const { return res_ ? PQnfields(res_) : 0; }
  bool IsNull(int row, int col) const {
    return PQgetisnull(res_, row, col) != 0;
  }
  std::string_view Get(int row, int col) const {
    return std::string_view(PQgetvalue(res_, row, col),
                            static_cast<size_t>(PQgetlength(res_, row, col)));
  }
  std::string GetString(int row, int col) const {
    return std::string(Get(row, col));
  }
  // Integer and float columns; NULL reads as 0.
  int64_t GetInt(int row, int col) const;
  double GetDouble(int row, int col) const;
  bool GetBool(int row, int col) const { return Get(row, col) == "t"; }
  // Rows changed by INSERT/UPDATE/DELETE without RETURNING.
  int64_t Affected() const;

 private:
  PGresult* res_ = nullptr;
};

class PgConn {
 public:
  // Connects with `conninfo` (URL or key=value). `application_name` is
  // forced; a connect_timeout of 10 s applies unless conninfo sets one.
  static Result<std::unique_ptr<PgConn>> Connect(
      const std::string& conninfo, const std::string& application_name,
      PoolMode mode = PoolMode::kSession);

  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  PoolMode pool_mode() const { return mode_; }
  // Whether Listen() listens: new work can wake a wait on Socket().
  bool notifications() const { return mode_ == PoolMode::kSession; }

  // Runs one or more statements without parameters (simple protocol).
  // Transaction control (BEGIN) goes through Begin().
  Result<PgResult> Exec(std::string_view sql);
  // Runs one statement with text parameters ($1, $2, ...).
  Result<PgResult> Exec(const std::string& sql, const Params& params);

  // Opens a transaction: BEGIN followed by `how` ("ISOLATION LEVEL ...").
  // It is READ ONLY after SetReadOnly(true) and carries the
  // SetSessionSetting() values (set_config(..., true)), sent in the same
  // round trip as the BEGIN.
  Status Begin(std::string_view how = {});
  // Rolls back the open transaction (nothing when the connection is
  // broken); last_sqlstate() still names the failure that led to it.
  void Rollback();
  // Makes this connection's transactions read-only, or gives back the
  // server's default: each Begin() is READ ONLY, and a statement run
  // outside a transaction gets one of its own (BEGIN READ ONLY ... COMMIT).
  // The server session's default_transaction_read_only is never changed.
  Status SetReadOnly(bool on);
  // Sets run-time parameter `name` for every statement of this connection:
  // each Begin() sets it for its transaction, and a statement run outside
  // a transaction gets one of its own that does (ExecPipeline excepted).
  // The server session's own value is never changed.
  Status SetSessionSetting(const char* name, const std::string& value);
  // LISTENs (`listen_sql`, "LISTEN channel") in kSession mode; nothing in
  // kTransaction mode, where the caller's poll interval is the only wake-up.
  Status Listen(const char* listen_sql);
  // Runs one statement with text parameters and hands its rows to `row` one
  // at a time (libpq's single-row mode), so a result of millions of rows
  // never sits in memory; each PgResult holds exactly one row. The server
  // still runs the statement to completion, so it may use a parallel plan
  // (a cursor would not). When `row` returns an error, the rest of the rows
  // are read and dropped and that error is returned; the connection stays
  // usable.
  template <typename Fn>
  Status ExecEachRow(const std::string& sql, const Params& params, Fn&& row) {
    return WithSessionState<Status>([&]() -> Status {
      AWC_RETURN_IF_ERROR(SendSingleRow(sql, params));
      Status first;
      for (;;) {
        Result<std::optional<PgResult>> next = NextRow();
        if (!next.ok()) return first.ok() ? next.status() : first;
        if (!next->has_value()) return first;
        if (first.ok()) first = row(**next);
      }
    });
  }

  // Prepares `sql` under `name` for this connection (kTransaction: keeps
  // the text, for ExecPrepared and ExecPipeline to run unnamed).
  Status Prepare(const std::string& name, const std::string& sql);
  Result<PgResult> ExecPrepared(const std::string& name, const Params& params);
  // Runs one statement as a prepared statement of this connection: the
  // first run of a given text prepares it (under a name of its own,
  // "awc_cached_<n>"), later runs only execute it. For the statements that
  // run for every job (docs/ARCHITECTURE.md, "Where code goes"). A failed
  // preparation is not remembered; the next run prepares again.
  Result<PgResult> ExecCached(const char* sql, const Params& params);

  // One statement of ExecPipeline: the name of a statement prepared on this
  // connection and its parameters.
  struct Prepared {
    const char* name;
    Params params;
  };
  // Runs prepared statements in libpq's pipeline mode: all are sent at
  // once and answered together (one round trip), as one implicit
  // transaction that commits after the last (one Sync: a transaction
  // pooler keeps one server connection for all of them). When one fails,
  // none takes effect and its error is returned. Needs the connection idle
  // (no open transaction: BEGIN ... COMMIT cannot wrap it); the fence is
  // not run, nor SetReadOnly/SetSessionSetting.
  Result<std::vector<PgResult>> ExecPipeline(
      const std::vector<Prepared>& statements);

  // True once the connection is unusable — lost, or found on a server
  // that cannot write (SQLSTATE 25006, see the contract) — and the owner
  // reconnects.
  bool IsBroken() const { return Lost() || read_only_server_; }
  // SQLSTATE of the last failed statement, or "".
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // The socket to watch for NOTIFY while idle.
  int Socket() const { return PQsocket(conn_); }
  // Reads pending input and returns how many notifications arrived on
  // any channel; `payload`, when set, sees each one's payload.
  Result<int> DrainNotifications(
      const std::function<void(const char*)>& payload = nullptr);

  PGconn* raw() { return conn_; }

  // The fence of this connection's transactions: a statement that
  // InTransaction runs right after BEGIN and that must return a row, or the
  // transaction is rolled back with kFailedPrecondition `refusal` before
  // its body runs. The worker fences its handlers' transactions with the
  // job's lease (docs/queue.md, "Fencing a handler's transactions").
  void SetFence(const char* sql, Params params, std::string refusal);
  void ClearFence() { fence_sql_ = nullptr; }
  // Runs the fence, if one is set.
  Status CheckFence();

 private:
  PgConn(PGconn* conn, PoolMode mode) : conn_(conn), mode_(mode) {}
  // The connection itself is gone.
  bool Lost() const { return PQstatus(conn_) == CONNECTION_BAD; }
  // Session state to carry (SetReadOnly, SetSessionSetting), outside a
  // transaction: a statement needs a transaction of its own.
  bool NeedsOwnTransaction() const;
  // Runs `run` (which returns R: a Status or a Result), in a transaction
  // of its own when NeedsOwnTransaction().
  template <typename R, typename Fn>
  R WithSessionState(Fn&& run) {
    if (!NeedsOwnTransaction()) return run();
    if (Status s = Begin(); !s.ok()) return s;
    R out = run();
    Status end = EndOwnTransaction(out.ok());
    if (!out.ok()) return out;
    if (!end.ok()) return end;
    return out;
  }
  // COMMIT after `ok`, else ROLLBACK (unless the connection is lost).
  Status EndOwnTransaction(bool ok);
  // Exec without WithSessionState.
  Result<PgResult> ExecSimple(const std::string& sql);
  Result<PgResult> ExecParams(const std::string& sql, const Params& params);
  // The text Prepare() kept under `name` (kTransaction); kInternal when
  // nothing was prepared under it.
  Result<const std::string*> PreparedText(std::string_view name) const;
  // `text` as an SQL string literal, quoted by libpq.
  Result<std::string> Literal(std::string_view text);
  // ExecEachRow's halves: send in single-row mode; then the next row, or
  // nullopt once the statement is done (every result read).
  Status SendSingleRow(const std::string& sql, const Params& params);
  Result<std::optional<PgResult>> NextRow();
  Result<PgResult> Check(PGresult* res);

  PGconn* conn_;
  PoolMode mode_;
  std::string last_sqlstate_;
  // ExecCached's statements: text -> the name it is prepared under.
  std::unordered_map<std::string, std::string> cached_;
  // kTransaction: Prepare()'s statements, name -> text.
  std::unordered_map<std::string, std::string> texts_;
  // The session state each transaction carries; the settings' names and
  // values are SQL literals (Literal()).
  bool read_only_ = false;
  // A write was refused with SQLSTATE 25006 although read_only_ is off.
  bool read_only_server_ = false;
  std::vector<std::pair<std::string, std::string>> settings_;
  const char* fence_sql_ = nullptr;
  Params fence_params_;
  std::string fence_refusal_;
  // A query was sent in single-row mode, and none since outside a
  // pipeline: libpq keeps the mode, and a pipeline would then get its
  // first statement's rows one at a time (see ExecPipeline).
  bool single_row_mode_kept_ = false;
};

// Runs `body` inside BEGIN ... COMMIT, after the connection's fence (if
// any); rolls back when either fails.
template <typename Fn>
Status InTransaction(PgConn& conn, Fn&& body) {
  AWC_RETURN_IF_ERROR(conn.Begin());
  Status s = conn.CheckFence();
  if (s.ok()) s = body();
  if (!s.ok()) {
    conn.Rollback();
    return s;
  }
  return conn.Exec("COMMIT").status();
}

// Runs `body`, which returns a Result, inside BEGIN ... COMMIT and returns
// its result; rolls back when it fails.
template <typename Fn>
auto InTransactionResult(PgConn& conn, Fn&& body) -> decltype(body()) {
  decltype(body()) out = Status::Internal("transaction body did not run");
  Status s = InTransaction(conn, [&]() -> Status {
    out = body();
    return out.status();
  });
  if (!s.ok()) return s;
  return out;
}

// A PostgreSQL array literal ("{a,b}") of `values`, each quoted and escaped,
// to pass as one text parameter cast to text[] (or bigint[]).
std::string ArrayLiteral(const std::vector<std::string>& values);
// The same for numbers (bigint[]).
std::string ArrayLiteral(const std::vector<uint64_t>& values);
// The same for booleans (boolean[]).
std::string ArrayLiteral(const std::vector<bool>& values);

// The transaction lost a race for locks or for a serializable snapshot
// (40001, 40P01, 55P03): running it again on the same connection is the
// remedy.
bool IsLockConflict(std::string_view sqlstate);

// One line, secrets scrubbed: the form every libpq message takes in a Status
// and an event. libpq's lines are joined so that they read as a sentence:
// "…failed: Connection refused; Is the server running on that host…" (a
// hint, DETAIL or LINE after "; ", a wrapped sentence with a space); blanks
// and control characters inside a line become one space.
std::string CleanMessage(const char* libpq_message);

}  // namespace awc::db

#endif  // AWC_DB_PG_H_
