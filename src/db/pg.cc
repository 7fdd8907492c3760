#include "db/pg.h"

#include <cstdlib>
#include <string_view>

#include "db/writable.h"
#include "obs/log.h"

namespace awc::db {

bool IsLockConflict(std::string_view sqlstate) {
  return sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "55P03";
}

namespace {

bool TransientSqlState(std::string_view state) {
  if (state.size() != 5) return false;
  return state.starts_with("08") || state.starts_with("53") ||
         state.starts_with("57P") || IsLockConflict(state);
}

// The server refused the statement for the values it carries: a data
// exception (22), an integrity constraint violation (23) or a limit of the
// server exceeded by them (54). The same statement will fail again.
bool RefusedValuesSqlState(std::string_view state) {
  if (state.size() != 5) return false;
  return state.starts_with("22") || state.starts_with("23") ||
         state.starts_with("54");
}

// A prepared statement of this session that the server does not have, or
// one it already has under that name: what a session that prepares gets
// behind a pooler in transaction mode, which runs each transaction on
// whichever server connection is free (docs/operations.md, "Connection
// poolers"). The statements are this process's own, so nothing else
// explains it.
bool PoolerSqlState(std::string_view state) {
  return state == "26000" || state == "42P05";
}

constexpr const char* kPoolerHint =
    " (the server does not hold this session's prepared statements, as "
    "behind a connection pooler in transaction mode such as PgBouncer's "
    "pool_mode = transaction: set AWC_DATABASE_POOL_MODE=transaction)";

// Server notices ("schema already exists, skipping") would otherwise go to
// stderr as bare text, between the JSON event lines.
void OnNotice(void*, const char* message) {
  obs::Debug("database", "server notice")
      .Str("notice", CleanMessage(message))
      .Emit();
}

std::vector<const char*> ParamPointers(const Params& params) {
  std::vector<const char*> out;
  out.reserve(params.size());
  for (const Param& p : params) out.push_back(p ? p->c_str() : nullptr);
  return out;
}

}  // namespace

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (res_ != nullptr) PQclear(res_);
    res_ = other.res_;
    other.res_ = nullptr;
  }
  return *this;
}

PgResult::~PgResult() {
  if (res_ != nullptr) PQclear(res_);
}

int64_t PgResult::GetInt(int row, int col) const {
  if (IsNull(row, col)) return 0;
  return strtoll(PQgetvalue(res_, row, col), nullptr, 10);
}

double PgResult::GetDouble(int row, int col) const {
  if (IsNull(row, col)) return 0;
  return strtod(PQgetvalue(res_, row, col), nullptr);
}

int64_t PgResult::Affected() const {
  const char* n = res_ ? PQcmdTuples(res_) : "";
  return *n ? strtoll(n, nullptr, 10) : 0;
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(
    const std::string& conninfo, const std::string& application_name,
    PoolMode mode) {
  // connect_timeout (and target_session_attrs, only added when the
  // conninfo has none) come before dbname so the expanded conninfo can
  // override them; application_name comes after so it is always ours.
  std::vector<const char*> keys = {"connect_timeout"};
  std::vector<const char*> values = {"10"};
  if (NeedsReadWriteTarget(conninfo)) {
    keys.push_back("target_session_attrs");
    values.push_back("read-write");
  }
  keys.insert(keys.end(), {"dbname", "application_name", nullptr});
  values.insert(values.end(),
                {conninfo.c_str(), application_name.c_str(), nullptr});
  PGconn* conn =
      PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) return Status::Internal("out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = CleanMessage(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Transient("database connection failed: " + msg);
  }
  PQsetNoticeProcessor(conn, OnNotice, nullptr);
  return std::unique_ptr<PgConn>(new PgConn(conn, mode));
}

PgConn::~PgConn() { PQfinish(conn_); }

Result<PgResult> PgConn::Check(PGresult* res) {
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    return PgResult(res);
  }
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  if (res != nullptr && !Lost() && RefusedValuesSqlState(last_sqlstate_)) {
    // Only the primary message: the detail of such an error quotes the
    // values (a whole failing row, payload included).
    const char* primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    std::string text = "database refused the values (SQLSTATE " +
                       last_sqlstate_ + "): " + CleanMessage(primary);
    PQclear(res);
    return Status::InvalidArgument(std::move(text));
  }
  std::string msg =
      CleanMessage(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  if (msg.empty()) msg = CleanMessage(PQerrorMessage(conn_));
  if (res != nullptr) PQclear(res);
  if (Lost()) {
    return Status::Transient("database connection lost: " + msg);
  }
  if (last_sqlstate_ == "25006" && !read_only_) {
    // A write this connection meant to make, refused: the session is on a
    // server that cannot write (db/writable.h).
    read_only_server_ = true;
    return Status::Transient(std::string(kReadOnlySession) +
                             " (SQLSTATE 25006): " + msg);
  }
  std::string text = "database error";
  if (!last_sqlstate_.empty()) text += " (SQLSTATE " + last_sqlstate_ + ")";
  text += ": " + msg;
  if (mode_ == PoolMode::kSession && PoolerSqlState(last_sqlstate_)) {
    return Status::FailedPrecondition(text + kPoolerHint);
  }
  if (TransientSqlState(last_sqlstate_)) return Status::Transient(text);
  return Status::Internal(text);
}

Result<PgResult> PgConn::ExecSimple(const std::string& sql) {
  single_row_mode_kept_ = false;
  return Check(PQexec(conn_, sql.c_str()));
}

Result<PgResult> PgConn::ExecParams(const std::string& sql,
                                    const Params& params) {
  std::vector<const char*> values = ParamPointers(params);
  single_row_mode_kept_ = false;
  return Check(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                            nullptr, values.data(), nullptr, nullptr, 0));
}

Result<PgResult> PgConn::Exec(std::string_view sql) {
  std::string copy(sql);
  return WithSessionState<Result<PgResult>>([&] { return ExecSimple(copy); });
}

Result<PgResult> PgConn::Exec(const std::string& sql, const Params& params) {
  return WithSessionState<Result<PgResult>>(
      [&] { return ExecParams(sql, params); });
}

bool PgConn::NeedsOwnTransaction() const {
  return (read_only_ || !settings_.empty()) &&
         PQtransactionStatus(conn_) == PQTRANS_IDLE;
}

Status PgConn::EndOwnTransaction(bool ok) {
  if (ok) return ExecSimple("COMMIT").status();
  Rollback();
  return Status::OK();
}

void PgConn::Rollback() {
  // The statement's SQLSTATE is the one the caller asks last_sqlstate().
  std::string failed = last_sqlstate_;
  if (!Lost()) (void)ExecSimple("ROLLBACK");
  last_sqlstate_ = std::move(failed);
}

Status PgConn::Begin(std::string_view how) {
  std::string sql = "BEGIN";
  if (!how.empty()) sql += " " + std::string(how);
  if (read_only_ && how.find("READ ONLY") == std::string_view::npos) {
    sql += " READ ONLY";
  }
  // The settings travel in the same message as the BEGIN (one round trip):
  // "BEGIN; SELECT set_config('name', 'value', true), ...". Their values
  // are the caller's constants, quoted by libpq all the same.
  for (size_t i = 0; i < settings_.size(); ++i) {
    sql += i == 0 ? "; SELECT " : ", ";
    sql += "set_config(" + settings_[i].first + ", " + settings_[i].second +
           ", true)";
  }
  Status s = ExecSimple(sql).status();
  if (!s.ok() && !Lost() && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    (void)ExecSimple("ROLLBACK");
  }
  return s;
}

Status PgConn::SetReadOnly(bool on) {
  read_only_ = on;
  return Status::OK();
}

Status PgConn::SetSessionSetting(const char* name, const std::string& value) {
  AWC_ASSIGN_OR_RETURN(std::string quoted_name, Literal(name));
  AWC_ASSIGN_OR_RETURN(std::string quoted_value, Literal(value));
  for (auto& [have, was] : settings_) {
    if (have == quoted_name) {
      was = std::move(quoted_value);
      return Status::OK();
    }
  }
  settings_.emplace_back(std::move(quoted_name), std::move(quoted_value));
  return Status::OK();
}

Result<std::string> PgConn::Literal(std::string_view text) {
  char* quoted = PQescapeLiteral(conn_, text.data(), text.size());
  if (quoted == nullptr) {
    return Status::InvalidArgument("cannot quote a setting: " +
                                   CleanMessage(PQerrorMessage(conn_)));
  }
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

Status PgConn::Listen(const char* listen_sql) {
  if (!notifications()) return Status::OK();
  return ExecSimple(listen_sql).status();
}

Result<const std::string*> PgConn::PreparedText(std::string_view name) const {
  auto it = texts_.find(std::string(name));
  if (it == texts_.end()) {
    return Status::Internal("no statement was prepared as " +
                            std::string(name));
  }
  return &it->second;
}

Status PgConn::SendSingleRow(const std::string& sql, const Params& params) {
  std::vector<const char*> values = ParamPointers(params);
  if (PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                        nullptr, values.data(), nullptr, nullptr, 0) != 1) {
    return Check(nullptr).status();
  }
  single_row_mode_kept_ = true;
  if (PQsetSingleRowMode(conn_) != 1) {
    // Only fails right after a send that did not go out; drain it.
    while (PGresult* res = PQgetResult(conn_)) PQclear(res);
    return Status::Internal("database error: single-row mode refused");
  }
  return Status::OK();
}

Result<std::optional<PgResult>> PgConn::NextRow() {
  PGresult* res = PQgetResult(conn_);
  if (res == nullptr) return std::optional<PgResult>();
  ExecStatusType st = PQresultStatus(res);
  if (st == PGRES_SINGLE_TUPLE) return std::optional<PgResult>(PgResult(res));
  if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
    // The end of the rows; the next call returns nullptr.
    PQclear(res);
    return NextRow();
  }
  // An error: read what remains so the connection is idle again.
  Result<PgResult> failed = Check(res);
  while (PGresult* rest = PQgetResult(conn_)) PQclear(rest);
  return failed.status();
}

Status PgConn::Prepare(const std::string& name, const std::string& sql) {
  if (mode_ == PoolMode::kTransaction) {
    texts_[name] = sql;
    return Status::OK();
  }
  single_row_mode_kept_ = false;
  return Check(PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr))
      .status();
}

Result<PgResult> PgConn::ExecPrepared(const std::string& name,
                                      const Params& params) {
  if (mode_ == PoolMode::kTransaction) {
    AWC_ASSIGN_OR_RETURN(const std::string* text, PreparedText(name));
    return Exec(*text, params);
  }
  return WithSessionState<Result<PgResult>>([&] {
    std::vector<const char*> values = ParamPointers(params);
    single_row_mode_kept_ = false;
    return Check(PQexecPrepared(conn_, name.c_str(),
                                static_cast<int>(values.size()), values.data(),
                                nullptr, nullptr, 0));
  });
}

Result<std::vector<PgResult>> PgConn::ExecPipeline(
    const std::vector<Prepared>& statements) {
  // kTransaction: each statement's text, sent unnamed; all looked up
  // before anything goes out.
  std::vector<const std::string*> texts(statements.size(), nullptr);
  if (mode_ == PoolMode::kTransaction) {
    for (size_t i = 0; i < statements.size(); ++i) {
      AWC_ASSIGN_OR_RETURN(texts[i], PreparedText(statements[i].name));
    }
  }
  // libpq ends single-row mode when the next query is sent, but not when
  // it is sent in a pipeline: after ExecEachRow, the pipeline's first
  // statement would return its rows one at a time. An empty query outside
  // the pipeline ends the mode (a round trip, only in that case).
  if (single_row_mode_kept_) {
    PQclear(PQexec(conn_, ""));
    single_row_mode_kept_ = false;
  }
  if (PQenterPipelineMode(conn_) != 1) return Check(nullptr).status();
  bool sent = true;
  for (size_t i = 0; i < statements.size(); ++i) {
    const Prepared& st = statements[i];
    std::vector<const char*> values = ParamPointers(st.params);
    int n = static_cast<int>(values.size());
    const std::string* text = texts[i];
    int ok = text != nullptr
                 ? PQsendQueryParams(conn_, text->c_str(), n, nullptr,
                                     values.data(), nullptr, nullptr, 0)
                 : PQsendQueryPrepared(conn_, st.name, n, values.data(),
                                       nullptr, nullptr, 0);
    if (ok != 1) {
      sent = false;
      break;
    }
  }
  // The sync ends the implicit transaction: a commit, or the rollback of
  // everything after an error.
  if (sent && PQpipelineSync(conn_) != 1) sent = false;
  if (!sent) {
    Status s = Check(nullptr).status();
    (void)PQexitPipelineMode(conn_);
    return s;
  }
  // Each statement's results end with a null; the sync's result ends the
  // pipeline. After an error the statements left are reported aborted.
  std::vector<PgResult> out;
  Status error;
  for (;;) {
    PGresult* res = PQgetResult(conn_);
    if (res == nullptr) {
      if (Lost()) break;
      continue;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_PIPELINE_SYNC) {
      PQclear(res);
      break;
    }
    if (st == PGRES_PIPELINE_ABORTED) {
      PQclear(res);
      continue;
    }
    Result<PgResult> r = Check(res);
    if (!r.ok()) {
      if (error.ok()) error = r.status();
      if (Lost()) break;
      continue;
    }
    out.push_back(std::move(*r));
  }
  if (PQexitPipelineMode(conn_) != 1 && error.ok() && !Lost()) {
    error = Status::Internal("database error: cannot leave pipeline mode: " +
                             CleanMessage(PQerrorMessage(conn_)));
  }
  if (error.ok() && out.size() != statements.size()) {
    error = Lost() ? Status::Transient("database connection lost: " +
                                       CleanMessage(PQerrorMessage(conn_)))
                   : Status::Internal(
                         "database error: a pipelined "
                         "statement returned no result");
  }
  if (!error.ok()) return error;
  return out;
}

void PgConn::SetFence(const char* sql, Params params, std::string refusal) {
  fence_sql_ = sql;
  fence_params_ = std::move(params);
  fence_refusal_ = std::move(refusal);
}

Status PgConn::CheckFence() {
  if (fence_sql_ == nullptr) return Status::OK();
  AWC_ASSIGN_OR_RETURN(PgResult r, ExecCached(fence_sql_, fence_params_));
  if (r.rows() == 0) return Status::FailedPrecondition(fence_refusal_);
  return Status::OK();
}

Result<PgResult> PgConn::ExecCached(const char* sql, const Params& params) {
  if (mode_ == PoolMode::kTransaction) return Exec(sql, params);
  auto it = cached_.find(sql);
  if (it == cached_.end()) {
    std::string name = "awc_cached_" + std::to_string(cached_.size() + 1);
    AWC_RETURN_IF_ERROR(Prepare(name, sql));
    it = cached_.emplace(sql, std::move(name)).first;
  }
  return ExecPrepared(it->second, params);
}

Result<int> PgConn::DrainNotifications(
    const std::function<void(const char*)>& payload) {
  if (PQconsumeInput(conn_) == 0) {
    return Status::Transient("database connection lost: " +
                             CleanMessage(PQerrorMessage(conn_)));
  }
  int count = 0;
  while (PGnotify* n = PQnotifies(conn_)) {
    ++count;
    if (payload) payload(n->extra);
    PQfreemem(n);
  }
  return count;
}

}  // namespace awc::db
