#include "tests/support/pg_standby.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "db/pg.h"
#include "tests/support/harness.h"
#include "tests/support/server_process.h"

namespace awc::testing {
namespace {

constexpr double kStartTimeoutS = 120;
constexpr size_t kLogTail = 8000;

// The server programs of the test cluster's version (pg_virtualenv sets
// PGVERSION), else of the first version installed.
std::string ServerBinDir() {
  std::vector<std::string> dirs;
  if (const char* v = getenv("PGVERSION"); v != nullptr && *v != '\0') {
    dirs.push_back(std::string("/usr/lib/postgresql/") + v + "/bin");
  }
  for (const char* v : {"15", "16", "17"}) {
    dirs.push_back(std::string("/usr/lib/postgresql/") + v + "/bin");
  }
  for (const std::string& d : dirs) {
    if (access((d + "/postgres").c_str(), X_OK) == 0) return d;
  }
  return "";
}

bool WriteFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok =
      write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return close(fd) == 0 && ok;
}

// A setting of the test cluster that a hot standby may not have lower.
std::string PrimarySetting(db::PgConn& conn, const std::string& name) {
  Result<db::PgResult> r = conn.Exec("SELECT current_setting($1)", {name});
  return r.ok() && r->rows() == 1 ? r->GetString(0, 0) : "";
}

}  // namespace

PgStandby::PgStandby() {
  bindir_ = ServerBinDir();
  if (bindir_.empty() || getenv("PGPORT") == nullptr) {
    ADD_FAILURE() << "no PostgreSQL server programs, or PGPORT is not set: "
                     "run under pg_virtualenv";
    return;
  }
  dir_ = MakeServerDir("awc-standby");
  if (dir_.empty()) return;
  data_ = dir_ + "/data";
  port_ = FreePort();

  std::string hot_standby_floor;
  {
    auto primary = db::PgConn::Connect(ClusterUrl("postgres"), "awc-test");
    if (!primary.ok()) {
      ADD_FAILURE() << primary.status().message();
      return;
    }
    for (const char* name :
         {"max_connections", "max_worker_processes", "max_wal_senders",
          "max_prepared_transactions", "max_locks_per_transaction"}) {
      hot_standby_floor +=
          std::string(name) + " = " + PrimarySetting(**primary, name) + "\n";
    }
  }
  // The password travels in the environment (PGPASSWORD), which -R also
  // writes into the standby's primary_conninfo.
  if (RunTool("pg_basebackup",
              "-h " + EnvOr("PGHOST", "localhost") + " -p " +
                  EnvOr("PGPORT", "5432") + " -U " +
                  EnvOr("PGUSER", "postgres") + " -D " + data_ +
                  " -R -X stream -c fast",
              false) != 0) {
    ADD_FAILURE() << "pg_basebackup failed:\n" << Log();
    return;
  }
  if (!WriteFile(data_ + "/postgresql.conf",
                 "port = " + std::to_string(port_) +
                     "\n"
                     "listen_addresses = '127.0.0.1'\n"
                     "unix_socket_directories = '" +
                     dir_ +
                     "'\n"
                     "hot_standby = on\n"
                     "fsync = off\n"
                     "shared_buffers = 16MB\n" +
                     hot_standby_floor) ||
      !WriteFile(data_ + "/pg_hba.conf",
                 "local all all trust\n"
                 "host all all 127.0.0.1/32 trust\n") ||
      !WriteFile(data_ + "/pg_ident.conf", "")) {
    ADD_FAILURE() << "cannot write the standby's configuration in " << data_;
    return;
  }
  std::vector<std::string> args = {bindir_ + "/postgres", "-D", data_};
  // PostgreSQL refuses to run as root: the cluster's owner runs it.
  if (geteuid() == 0) {
    if (getpwnam("postgres") == nullptr ||
        RunTool("chown", "-R postgres:postgres " + dir_, false) != 0) {
      ADD_FAILURE() << "running as root and cannot give " << dir_
                    << " to the postgres user";
      return;
    }
    args.insert(args.begin(), {"runuser", "-u", "postgres", "--"});
  }
  chmod(data_.c_str(), 0700);
  std::string why;
  pid_ = StartServer(std::move(args), dir_ + "/server.log", port_,
                     kStartTimeoutS, &why);
  if (pid_ < 0) {
    ADD_FAILURE() << "the standby did not come up on port " << port_ << " ("
                  << why << "):\n"
                  << Log();
    return;
  }
  // It accepts connections before it has reached a consistent state.
  bool ready = WaitUntil(
      [&] { return db::PgConn::Connect(Url("postgres"), "awc-test").ok(); },
      kStartTimeoutS);
  if (!ready) {
    ADD_FAILURE() << "the standby does not take connections:\n" << Log();
    KillServer(pid_);
    pid_ = -1;
  }
}

PgStandby::~PgStandby() {
  if (pid_ > 0) {
    // Stops it the way a crash would, but lets it remove its shared memory.
    (void)RunTool("pg_ctl", "-D " + data_ + " -m immediate -w stop", true);
    KillServer(pid_);
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string PgStandby::Url(const std::string& db) const {
  return MultiHostUrl(db, {port_});
}

bool PgStandby::Promote() {
  auto conn = db::PgConn::Connect(Url("postgres"), "awc-test");
  if (!conn.ok()) {
    ADD_FAILURE() << conn.status().message();
    return false;
  }
  Result<db::PgResult> promoted = (*conn)->Exec("SELECT pg_promote(true, 60)");
  if (!promoted.ok() || promoted->GetString(0, 0) != "t") {
    ADD_FAILURE() << "pg_promote failed: "
                  << (promoted.ok() ? "it timed out"
                                    : promoted.status().message())
                  << "\n"
                  << Log();
    return false;
  }
  return true;
}

std::string PgStandby::Log() const {
  return FileTail(dir_ + "/server.log", kLogTail);
}

int PgStandby::RunTool(const std::string& tool, const std::string& args,
                       bool as_server_user) const {
  std::string program = tool == "chown" ? tool : bindir_ + "/" + tool;
  std::string cmd = program + " " + args;
  if (as_server_user && geteuid() == 0) cmd = "runuser -u postgres -- " + cmd;
  cmd += " >>" + dir_ + "/server.log 2>&1";
  int st = system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace awc::testing
