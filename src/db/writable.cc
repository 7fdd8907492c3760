#include "db/writable.h"

#include <libpq-fe.h>

#include "db/session_sql.h"

namespace awc::db {

std::string ReadOnlyReason(bool in_recovery, bool read_only_default) {
  if (in_recovery) {
    return "the server is a standby (in recovery); DATABASE_URL should "
           "lead to the primary (a multi-host URL finds it with "
           "target_session_attrs=read-write)";
  }
  if (read_only_default) {
    return "default_transaction_read_only is on for this database, role or "
           "server";
  }
  return "";
}

Status SessionWritable(std::string_view in_recovery,
                       std::string_view read_only_default) {
  std::string why =
      ReadOnlyReason(in_recovery == "t", read_only_default == "on");
  if (why.empty()) return Status::OK();
  return Status::Transient(std::string(kReadOnlySession) + ": " + why);
}

Status RequireWritable(PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(PgResult r, conn.Exec(sql::kSessionReadOnly));
  if (r.rows() != 1 || r.cols() != 2) {
    return Status::Internal(
        "database error: the session's read-only check returned no row");
  }
  return SessionWritable(r.Get(0, 0), r.Get(0, 1));
}

bool IsReadOnlySession(const Status& s) {
  return s.IsTransient() &&
         s.message().find(kReadOnlySession) != std::string::npos;
}

bool NeedsReadWriteTarget(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) return false;
  bool several_hosts = false;
  bool target_set = false;
  for (const PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || *o->val == '\0') continue;
    std::string_view key = o->keyword;
    if (key == "target_session_attrs") target_set = true;
    if ((key == "host" || key == "hostaddr") &&
        std::string_view(o->val).find(',') != std::string_view::npos) {
      several_hosts = true;
    }
  }
  PQconninfoFree(opts);
  return several_hosts && !target_set;
}

}  // namespace awc::db
