#include "cli/invocation.h"

#include <cstring>

#include "cli/output.h"
#include "cli/target.h"
#include "common/redact.h"
#include "config/unknown_variables.h"
#include "migrate/migrator.h"

namespace awc::cli {

config::EnvLookup WithDatabaseUrl(config::EnvLookup env, std::string url) {
  return [env = std::move(env),
          url = std::move(url)](const char* name) -> const char* {
    if (strcmp(name, "DATABASE_URL") == 0) return url.c_str();
    if (strcmp(name, "DATABASE_URL_FILE") == 0) return nullptr;
    return env(name);
  };
}

Invocation::Invocation(const Command& command, Globals globals, ParsedArgs args,
                       Io io)
    : command_(command),
      globals_(std::move(globals)),
      args_(std::move(args)),
      io_(std::move(io)) {}

Invocation::~Invocation() = default;

int Invocation::Usage(std::string_view problem) {
  std::string text = "awcctl: " + OneLine(Scrub(problem)) + "\nusage: awcctl " +
                     command_.name + " " + command_.args + "\n" + "(awcctl " +
                     command_.name + " --help for more)\n";
  PrintText(io_.err, text);
  return kExitUsage;
}

int Invocation::Fail(const Status& status) {
  Note(status.message());
  return refused_ ? kExitRefused : kExitError;
}

void Invocation::Note(std::string_view line) {
  PrintText(io_.err, "awcctl: " + OneLine(Scrub(line)) + "\n");
}

void Invocation::Print(std::string_view text) { PrintText(io_.out, text); }

void Invocation::Print(const JsonPtr& doc) { PrintJson(io_.out, doc.get()); }

Result<const config::Settings*> Invocation::Settings() {
  if (!settings_) {
    config::EnvLookup env = io_.env;
    if (globals_.database_url) {
      env = WithDatabaseUrl(env, *globals_.database_url);
    }
    if (!warned_) {
      warned_ = true;
      for (const config::UnknownVariable& u :
           config::UnknownVariables(io_.env_names)) {
        Note("warning: " + u.Message());
      }
    }
    AWC_ASSIGN_OR_RETURN(
        config::Config cfg,
        config::Config::Load(globals_.config_path, env, io_.default_config));
    settings_ = cfg.settings();
  }
  return &*settings_;
}

Result<db::PgConn*> Invocation::Connect(Open how) {
  if (!conn_) {
    AWC_ASSIGN_OR_RETURN(const config::Settings* s, Settings());
    if (s->database_url.empty()) {
      return Status::InvalidArgument("DATABASE_URL is not set");
    }
    // Said before connecting, so that an operator whose database is down
    // still sees where awcctl tried.
    std::string announced = TargetUrl(TargetOfConninfo(s->database_url));
    Note("target " + announced);
    AWC_ASSIGN_OR_RETURN(conn_, db::PgConn::Connect(s->database_url, "awcctl",
                                                    s->DatabasePoolMode()));
    read_only_ = false;
    target_ = TargetUrl(TargetOf(*conn_));
    // Several hosts, or the default socket: the one it reached.
    if (target_ != announced) Note("connected to " + target_);
  }
  if (!how.any_schema) AWC_RETURN_IF_ERROR(migrate::CheckCurrent(*conn_));
  if (how.changes && settings_->production) {
    Status ok = ConfirmProduction(*io_.terminal, target_,
                                  TargetOf(*conn_).dbname, yes());
    if (!ok.ok()) {
      refused_ = true;
      return ok;
    }
  }
  // Step 5. A session starts with the server's default, so only a change
  // of mode costs a statement.
  if (read_only_ == how.changes) {
    AWC_RETURN_IF_ERROR(conn_->SetReadOnly(!how.changes));
    read_only_ = !how.changes;
  }
  return conn_.get();
}

}  // namespace awc::cli
