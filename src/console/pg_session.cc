#include "console/pg_session.h"

#include "migrate/migrator.h"

namespace awc::console {
namespace {

// Read-only, whatever a page runs. A page answers in milliseconds: a
// statement still running after the timeout is stuck behind something (a
// migration's lock) and gives the error page. JIT compilation would cost
// more than the statements it compiles (the planner's costs for the
// per-kind counts pass jit_above_cost at a million jobs).
Status SetUp(db::PgConn& conn) {
  AWC_RETURN_IF_ERROR(conn.SetReadOnly(true));
  AWC_RETURN_IF_ERROR(conn.SetSessionSetting("statement_timeout", "5s"));
  return conn.SetSessionSetting("jit", "off");
}

constexpr const char* kApplicationName = "awcctl serve";

}  // namespace

PgSession::PgSession(std::string conninfo, db::PoolMode pool_mode,
                     std::unique_ptr<db::PgConn> conn, Note note)
    : conninfo_(std::move(conninfo)),
      pool_mode_(pool_mode),
      conn_(std::move(conn)),
      note_(std::move(note)) {
  if (conn_ != nullptr && !SetUp(*conn_).ok()) conn_.reset();
}

void PgSession::Lost(const Status& why) {
  if (conn_ != nullptr && conn_->IsBroken()) conn_.reset();
  if (up_ && note_) note_("database unavailable: " + why.message());
  up_ = false;
}

Result<db::PgConn*> PgSession::Begin() {
  if (conn_ == nullptr) {
    Result<std::unique_ptr<db::PgConn>> conn =
        db::PgConn::Connect(conninfo_, kApplicationName, pool_mode_);
    if (!conn.ok()) {
      Lost(conn.status());
      return conn.status();
    }
    Status ready = SetUp(**conn);
    if (ready.ok()) ready = migrate::CheckCurrent(**conn);
    if (!ready.ok()) {
      Lost(ready);
      return ready;
    }
    conn_ = std::move(*conn);
  }
  Status begun = conn_->Begin("ISOLATION LEVEL REPEATABLE READ READ ONLY");
  if (!begun.ok()) {
    Lost(begun);
    conn_.reset();  // whatever went wrong, start afresh next time
    return begun;
  }
  return conn_.get();
}

Status PgSession::End(const Status& status) {
  Status done = status;
  if (status.ok()) {
    done = conn_->Exec("COMMIT").status();
  } else if (!conn_->IsBroken()) {
    (void)conn_->Exec("ROLLBACK");
  }
  if (conn_->IsBroken()) {
    Lost(done.ok() ? Status::Transient("the connection was lost") : done);
    return done.ok() ? Status::Transient("the connection was lost") : done;
  }
  if (done.ok() && !up_) {
    if (note_) note_("database reachable again");
    up_ = true;
  }
  return done;
}

}  // namespace awc::console
