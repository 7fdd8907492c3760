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
//  - Not thread-safe; each worker process owns its connection.
#ifndef AWC_DB_PG_H_
#define AWC_DB_PG_H_

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace awc::db {

using Param = std::optional<std::string>;  // nullopt is SQL NULL
using Params = std::vector<Param>;

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
      const std::string& conninfo, const std::string& application_name);

  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // Runs one or more statements without parameters (simple protocol).
  Result<PgResult> Exec(std::string_view sql);
  // Runs one statement with text parameters ($1, $2, ...).
  Result<PgResult> Exec(const std::string& sql, const Params& params);
  // Runs one statement with text parameters and hands its rows to `row` one
  // at a time (libpq's single-row mode), so a result of millions of rows
  // never sits in memory; each PgResult holds exactly one row. The server
  // still runs the statement to completion, so it may use a parallel plan
  // (a cursor would not). When `row` returns an error, the rest of the rows
  // are read and dropped and that error is returned; the connection stays
  // usable.
  template <typename Fn>
  Status ExecEachRow(const std::string& sql, const Params& params, Fn&& row) {
    AWC_RETURN_IF_ERROR(SendSingleRow(sql, params));
    Status first;
    for (;;) {
      Result<std::optional<PgResult>> next = NextRow();
      if (!next.ok()) return first.ok() ? next.status() : first;
      if (!next->has_value()) return first;
      if (first.ok()) first = row(**next);
    }
  }

  // Prepares `sql` under `name` for this connection.
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
  // transaction that commits after the last. When one fails, none takes
  // effect and its error is returned. Needs the connection idle (no open
  // transaction: BEGIN ... COMMIT cannot wrap it); the fence is not run.
  Result<std::vector<PgResult>> ExecPipeline(
      const std::vector<Prepared>& statements);

  // True once the connection is unusable; the owner reconnects.
  bool IsBroken() const { return PQstatus(conn_) == CONNECTION_BAD; }
  // SQLSTATE of the last failed statement, or "".
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // The socket to watch for NOTIFY while idle.
  int Socket() const { return PQsocket(conn_); }
  // Reads pending input and returns how many notifications arrived on
  // any channel (their payloads are not needed).
  Result<int> DrainNotifications();

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
  explicit PgConn(PGconn* conn) : conn_(conn) {}
  // ExecEachRow's halves: send in single-row mode; then the next row, or
  // nullopt once the statement is done (every result read).
  Status SendSingleRow(const std::string& sql, const Params& params);
  Result<std::optional<PgResult>> NextRow();
  Result<PgResult> Check(PGresult* res);

  PGconn* conn_;
  std::string last_sqlstate_;
  // ExecCached's statements: text -> the name it is prepared under.
  std::unordered_map<std::string, std::string> cached_;
  const char* fence_sql_ = nullptr;
  Params fence_params_;
  std::string fence_refusal_;
};

// Runs `body` inside BEGIN ... COMMIT, after the connection's fence (if
// any); rolls back when either fails.
template <typename Fn>
Status InTransaction(PgConn& conn, Fn&& body) {
  AWC_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  Status s = conn.CheckFence();
  if (s.ok()) s = body();
  if (!s.ok()) {
    if (!conn.IsBroken()) (void)conn.Exec("ROLLBACK");
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

// One line, secrets scrubbed: the form every libpq message takes in a Status.
std::string CleanMessage(const char* libpq_message);

}  // namespace awc::db

#endif  // AWC_DB_PG_H_
