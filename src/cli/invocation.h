// Invocation: one run of one awcctl verb — its arguments, where it prints,
// and the database session it opens.
//
// Contract of Connect() (awcctl(1), DESCRIPTION and PRODUCTION GUARD):
//  1. The settings are read as the daemon reads them: defaults, the INI
//     file (-c, else AWC_CONFIG, else the default file when it exists),
//     the environment; -d URL stands for DATABASE_URL (and hides
//     DATABASE_URL_FILE).
//  2. It prints "awcctl: target postgresql://USER@HOST:PORT/DB" on standard
//     error (target.h: never a password), resolved from the settings
//     before it connects, then connects; when the connection reached
//     another target than the line named (one of several hosts, the
//     default socket), "awcctl: connected to URL" follows.
//  3. Unless the verb accepts any schema, a schema not at this binary's
//     version is refused (migrate::CheckCurrent's message).
//  4. A verb that changes the database, on a production database, passes
//     the guard (guard.h) first; a refusal makes Fail() exit 3.
//  5. A verb that does not change the database gets a session whose
//     transactions are read-only (db::PgConn::SetReadOnly:
//     default_transaction_read_only, or behind a transaction pooler
//     (AWC_DATABASE_POOL_MODE) READ ONLY transactions): what never asks
//     the guard cannot write either. A verb that does gets the server's
//     default back.
// Everything printed passes through the secret scrubber.
#ifndef AWC_CLI_INVOCATION_H_
#define AWC_CLI_INVOCATION_H_

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/command.h"
#include "cli/guard.h"
#include "common/json.h"
#include "common/status.h"
#include "config/config.h"
#include "db/pg.h"

namespace awc::cli {

// awcctl's own options: before the verb, and -c and -d also after it.
struct Globals {
  std::string config_path;                  // -c FILE
  std::optional<std::string> database_url;  // -d URL, --database-url URL
  bool yes = false;                         // --yes
  bool json = false;                        // --json
};

// The outside world of a run; tests substitute each part.
struct Io {
  FILE* out = stdout;
  FILE* err = stderr;
  Terminal* terminal = nullptr;
  config::EnvLookup env;
  // The names of the environment's variables, for the warning of each
  // AWC_* one that is no setting (config/unknown_variables.h).
  std::vector<std::string> env_names;
  std::string default_config;  // read when no file is named and it exists
};

class Invocation {
 public:
  Invocation(const Command& command, Globals globals, ParsedArgs args, Io io);
  ~Invocation();
  Invocation(const Invocation&) = delete;
  Invocation& operator=(const Invocation&) = delete;

  const Command& command() const { return command_; }
  const ParsedArgs& args() const { return args_; }
  bool json() const { return globals_.json || args_.Has("json"); }
  bool yes() const { return globals_.yes || args_.Has("yes"); }

  // "awcctl: <problem>" and the verb's usage on stderr; returns 2.
  int Usage(std::string_view problem);
  // "awcctl: <error>" on stderr; returns 1, or 3 after a refusal.
  int Fail(const Status& status);
  // "awcctl: <line>" on stderr.
  // Each of the three shows its text as one line (OneLine(), output.h):
  // a problem may quote what was typed or what the database holds.
  void Note(std::string_view line);
  // On stdout.
  void Print(std::string_view text);
  void Print(const JsonPtr& doc);

  // The settings (read once), after a warning on stderr,
  // "awcctl: warning: ...", for each AWC_* variable that is no setting.
  Result<const config::Settings*> Settings();

  struct Open {
    bool changes = false;     // the verb changes the database: the guard
    bool any_schema = false;  // skip the schema version check
  };
  // The session of this run (opened once; see the contract).
  Result<db::PgConn*> Connect(Open how);
  // Hands the session over to the caller (a verb that keeps it beyond the
  // run, as serve does); null when not connected.
  std::unique_ptr<db::PgConn> TakeConnection() { return std::move(conn_); }
  // The target URL of the session, once connected.
  const std::string& target() const { return target_; }

 private:
  const Command& command_;
  Globals globals_;
  ParsedArgs args_;
  Io io_;
  std::optional<config::Settings> settings_;
  bool warned_ = false;  // of unknown variables, once
  std::unique_ptr<db::PgConn> conn_;
  bool read_only_ = false;  // conn_'s session, as step 5 last left it
  std::string target_;
  bool refused_ = false;
};

// `env` with DATABASE_URL replaced by `url` and DATABASE_URL_FILE hidden
// (-d URL).
config::EnvLookup WithDatabaseUrl(config::EnvLookup env, std::string url);

}  // namespace awc::cli

#endif  // AWC_CLI_INVOCATION_H_
