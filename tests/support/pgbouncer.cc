#include "tests/support/pgbouncer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/support/harness.h"
#include "tests/support/server_process.h"

namespace awc::testing {
namespace {

constexpr double kStartTimeoutS = 30;
constexpr size_t kLogTail = 8000;

// A value of PgBouncer's auth file: in double quotes, a quote doubled.
std::string Quoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

bool WriteFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok =
      write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return close(fd) == 0 && ok;
}

bool Executable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string PgBouncer::BinaryPath() {
  if (const char* named = getenv("PGBOUNCER"); named != nullptr && *named) {
    return named;
  }
  std::istringstream path(EnvOr("PATH", ""));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (!dir.empty() && Executable(dir + "/pgbouncer")) {
      return dir + "/pgbouncer";
    }
  }
  return Executable("/usr/sbin/pgbouncer") ? "/usr/sbin/pgbouncer" : "";
}

PgBouncer::PgBouncer(Options options) {
  std::string binary = BinaryPath();
  if (binary.empty()) {
    ADD_FAILURE() << "pgbouncer is not installed (run `make deps-test`, or "
                     "set PGBOUNCER)";
    return;
  }
  if (getenv("PGPORT") == nullptr || getenv("PGUSER") == nullptr) {
    ADD_FAILURE() << "PGPORT and PGUSER are not set: run under pg_virtualenv";
    return;
  }
  dir_ = MakeServerDir("awc-pgbouncer");
  if (dir_.empty()) return;
  port_ = FreePort();
  std::string user = EnvOr("PGUSER", "");
  std::string host = EnvOr("PGHOST", "localhost");
  std::string conf =
      "[databases]\n"
      "* = host=" +
      host + " port=" + EnvOr("PGPORT", "5432") +
      "\n"
      "[pgbouncer]\n"
      "listen_addr = 127.0.0.1\n"
      "listen_port = " +
      std::to_string(port_) +
      "\n"
      "unix_socket_dir =\n"
      "auth_type = trust\n"
      "auth_file = " +
      dir_ +
      "/users.txt\n"
      "pool_mode = " +
      options.pool_mode +
      "\n"
      "default_pool_size = " +
      std::to_string(options.pool_size) +
      "\n"
      "min_pool_size = 0\n"
      "reserve_pool_size = 0\n"
      "max_client_conn = 200\n"
      "logfile = " +
      dir_ +
      "/pgbouncer.log\n"
      "pidfile = " +
      dir_ + "/pgbouncer.pid\n";
  if (!WriteFile(dir_ + "/pgbouncer.ini", conf) ||
      !WriteFile(dir_ + "/users.txt",
                 Quoted(user) + " " + Quoted(EnvOr("PGPASSWORD", "")) + "\n")) {
    ADD_FAILURE() << "cannot write PgBouncer's files in " << dir_;
    return;
  }
  std::vector<std::string> args = {binary};
  // PgBouncer refuses to run as root: as root (pg_virtualenv run by root),
  // it runs as the cluster's owner, who is given its directory.
  if (geteuid() == 0) {
    const passwd* pw = getpwnam("postgres");
    if (pw == nullptr) {
      ADD_FAILURE() << "running as root and there is no postgres user to "
                       "run pgbouncer as";
      return;
    }
    for (const char* f : {"", "/pgbouncer.ini", "/users.txt"}) {
      if (chown((dir_ + f).c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        ADD_FAILURE() << "chown " << dir_ << f << ": " << strerror(errno);
        return;
      }
    }
    args.push_back("-u");
    args.push_back("postgres");
  }
  args.push_back(dir_ + "/pgbouncer.ini");
  std::string why;
  pid_ = StartServer(std::move(args), "", port_, kStartTimeoutS, &why);
  if (pid_ < 0) {
    ADD_FAILURE() << "pgbouncer did not come up on port " << port_ << " ("
                  << why << "):\n"
                  << Log();
  }
}

PgBouncer::~PgBouncer() {
  KillServer(pid_);
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string PgBouncer::Url(const std::string& db) const {
  return "postgresql://" + EnvOr("PGUSER", "") +
         "@127.0.0.1:" + std::to_string(port_) + "/" + db;
}

std::string PgBouncer::Log() const {
  return FileTail(dir_ + "/pgbouncer.log", kLogTail);
}

}  // namespace awc::testing
