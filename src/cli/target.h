// The database awcctl is about to act on, as the line it prints first:
// "awcctl: target postgresql://USER@HOST:PORT/DB".
//
// Contract: the target is built from what the connection actually uses
// (user, host or socket directory, port, database), never from the
// connection string, so it holds no password whatever form the password
// came in (URL user info, a password= parameter, key=value, PGPASSWORD,
// a password file). Each part is percent-encoded as in a libpq URL (an
// IPv6 host in brackets), so the target is itself a URL that libpq reads.
#ifndef AWC_CLI_TARGET_H_
#define AWC_CLI_TARGET_H_

#include <string>
#include <string_view>

#include "db/pg.h"

namespace awc::cli {

struct TargetParts {
  std::string user;
  std::string host;  // a name, an address or a socket directory
  std::string port;
  std::string dbname;
};

// postgresql://USER@HOST:PORT/DB (parts that are empty are left out).
std::string TargetUrl(const TargetParts& parts);

// The parts of an open connection.
TargetParts TargetOf(db::PgConn& conn);

// The parts a connection string will connect to, resolved before
// connecting as libpq resolves them: the string's values, else the PG*
// environment, else libpq's defaults (the host is left empty for the
// default socket directory). Several hosts come out as "h1:p1,h2:p2" in
// `host` with `port` empty. A string libpq cannot parse gives no parts.
TargetParts TargetOfConninfo(const std::string& conninfo);

}  // namespace awc::cli

#endif  // AWC_CLI_TARGET_H_
