// PgSession: the console's one database session, kept open while the
// database answers and opened again when it returns.
//
// Contract:
//  - Read() runs `body` in one REPEATABLE READ READ ONLY transaction, so a
//    page's sections agree with each other; the session also has
//    default_transaction_read_only on and a statement timeout, so nothing
//    the console runs can change data or hold it for long (behind a
//    transaction pooler, `pool_mode`, they are set for each transaction
//    instead: db::PgConn::SetSessionSetting).
//  - Without a session (none yet, or the last one broke) Read() connects
//    first and checks that the schema is at this binary's version; a
//    failure is returned and the next Read() tries again.
//  - `note` hears one line when the database stops answering and one when
//    it answers again (awcctl prints them on stderr).
#ifndef AWC_CONSOLE_PG_SESSION_H_
#define AWC_CONSOLE_PG_SESSION_H_

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "db/pg.h"

namespace awc::console {

class PgSession {
 public:
  using Note = std::function<void(const std::string& line)>;

  // `conn`, when not null, is an open session to start with (awcctl's,
  // already checked); `conninfo` is used to connect again.
  PgSession(std::string conninfo, db::PoolMode pool_mode,
            std::unique_ptr<db::PgConn> conn, Note note);

  // Runs `body(conn)` in a read-only transaction (see the contract).
  template <typename Fn>
  auto Read(Fn&& body) -> decltype(body(std::declval<db::PgConn&>())) {
    Result<db::PgConn*> conn = Begin();
    if (!conn.ok()) return conn.status();
    auto out = body(**conn);
    Status done = End(out.status());
    if (!done.ok()) return done;
    return out;
  }

 private:
  // Connects if needed and opens the transaction.
  Result<db::PgConn*> Begin();
  // Commits after `status` is OK, else rolls back; forgets a broken
  // session. Returns `status`, or the commit's error.
  Status End(const Status& status);
  void Lost(const Status& why);

  std::string conninfo_;
  db::PoolMode pool_mode_;
  std::unique_ptr<db::PgConn> conn_;
  Note note_;
  bool up_ = true;  // whether the last attempt reached the database
};

}  // namespace awc::console

#endif  // AWC_CONSOLE_PG_SESSION_H_
