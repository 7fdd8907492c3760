// PgBouncer: a real PgBouncer on a free loopback port in front of the
// test cluster (PGHOST, PGPORT, PGUSER, PGPASSWORD), for the tests of
// awc-worker behind a connection pooler (awc-worker(8), CONNECTION
// POOLERS).
//
// The binary is $PGBOUNCER, else pgbouncer on PATH, else /usr/sbin/
// pgbouncer (Debian's package, which `make deps-test` installs); a missing
// one fails the test (ADD_FAILURE), it is never skipped. It runs in the
// foreground in its own process group with its own temporary directory:
// the configuration, its log, and an auth file that holds the cluster's
// password (mode 0600), with which PgBouncer logs in to the server. Its
// clients are trusted (auth_type = trust), so their URLs carry no password
// and nothing the tests print can show it.
#ifndef AWC_TESTS_SUPPORT_PGBOUNCER_H_
#define AWC_TESTS_SUPPORT_PGBOUNCER_H_

#include <sys/types.h>

#include <string>

namespace awc::testing {

class PgBouncer {
 public:
  struct Options {
    std::string pool_mode = "transaction";
    // Server connections per database and user: fewer than the clients,
    // so that clients share them.
    int pool_size = 2;
  };

  // Starts it; check ok() (a failure is also reported with ADD_FAILURE).
  explicit PgBouncer(Options options);
  // Kills its process group and removes its directory.
  ~PgBouncer();
  PgBouncer(const PgBouncer&) = delete;
  PgBouncer& operator=(const PgBouncer&) = delete;

  bool ok() const { return pid_ > 0; }
  int port() const { return port_; }
  // postgresql://USER@127.0.0.1:<port>/<db>, without a password.
  std::string Url(const std::string& db) const;
  // Its log so far (the tail when it is long).
  std::string Log() const;

  // Where the binary is looked for (see above); "" when there is none.
  static std::string BinaryPath();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_PGBOUNCER_H_
