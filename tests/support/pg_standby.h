// PgStandby: a hot standby of the test cluster (PGHOST, PGPORT, PGUSER,
// PGPASSWORD), for the tests of read-only sessions (awc-worker(8),
// "READ-ONLY SESSIONS"): what a failover that left DNS on the old primary,
// or a multi-host URL that names a standby first, puts the fleet on.
//
// It is made with `pg_basebackup -R` (streaming replication from the test
// cluster, standby.signal written) into a temporary directory, given a
// minimal configuration of its own (the test cluster's configuration lives
// outside its data directory), and its server runs in the foreground on a
// free loopback port, in a process group of its own. As root the server
// runs as the postgres user, who is given the directory. Its clients are
// trusted, so the URLs carry no password. Promote() turns it into a
// primary; the destructor stops it and removes the directory. A failure
// is reported with ADD_FAILURE; check ok().
#ifndef AWC_TESTS_SUPPORT_PG_STANDBY_H_
#define AWC_TESTS_SUPPORT_PG_STANDBY_H_

#include <sys/types.h>

#include <string>

namespace awc::testing {

class PgStandby {
 public:
  PgStandby();
  ~PgStandby();
  PgStandby(const PgStandby&) = delete;
  PgStandby& operator=(const PgStandby&) = delete;

  bool ok() const { return pid_ > 0; }
  int port() const { return port_; }
  // postgresql://USER@127.0.0.1:<port>/<db>, without a password.
  std::string Url(const std::string& db) const;
  // Ends recovery (pg_promote) and waits until the server takes writes;
  // false (and a test failure) when it did not.
  bool Promote();
  // The server's log so far (the tail when it is long).
  std::string Log() const;

 private:
  // Runs a server program of the cluster's version (as the server's user
  // when it must not be root); its exit code.
  int RunTool(const std::string& tool, const std::string& args,
              bool as_server_user) const;

  std::string dir_;
  std::string data_;
  std::string bindir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_PG_STANDBY_H_
