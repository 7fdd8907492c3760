// Probe: the master's own check that the database answers, for /readyz
// (docs/observability.md, "Observability"). A worker notices a lost
// database only at its next round trip, which a busy one may not make for
// minutes; the master asks on its own.
//
// Contract:
//  - Every `interval_secs` it runs "SELECT 1" on a connection of its own,
//    opened and used without blocking: libpq's non-blocking connect and
//    query, driven by watchers on the master's libev loop.
//  - A check that fails, or has not finished after `timeout_secs`, marks
//    the database unreachable and drops the connection; the next check
//    connects again. A check that succeeds marks it reachable. A change
//    either way is logged (never with the connection string).
//  - A check that succeeds hands the first value of its answer to the
//    judge, whose verdict is problem() (the daemon's judge compares the
//    schema version with the binary's); a change of verdict is logged.
//  - up() is nullopt until the first check has ended.
//  - Single-threaded; the loop must outlive the probe. Stop() (and the
//    destructor) ends any check and closes the connection.
#ifndef AWC_DB_PROBE_H_
#define AWC_DB_PROBE_H_

#include <ev.h>
#include <libpq-fe.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace awc::db {

class Probe {
 public:
  struct Options {
    std::string conninfo;          // DATABASE_URL
    std::string application_name;  // the probe's session
    double interval_secs = 2;
    double timeout_secs = 5;
    // The check's statement, and what its first value says: "" when the
    // database is fit for use, else why not (an answer, not an outage).
    std::string query = "SELECT 1";
    std::function<std::string(std::string_view first_value)> judge;
  };

  Probe(struct ev_loop* loop, Options options);
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Starts checking: the first check now, then every interval.
  void Start();
  void Stop();

  std::optional<bool> up() const { return up_; }
  // The judge's verdict on the last answer; "" while there is none.
  const std::string& problem() const { return problem_; }

 private:
  enum class Phase { kIdle, kConnecting, kQuerying };

  void Begin();
  // Drives the connect or the query after an event on the socket.
  void Step();
  void SendQuery();
  void End(bool ok, const std::string& error);
  void Judge(std::string_view value);
  void Watch(int events);

  static void OnTick(struct ev_loop* loop, ev_timer* w, int revents);
  static void OnTimeout(struct ev_loop* loop, ev_timer* w, int revents);
  static void OnIo(struct ev_loop* loop, ev_io* w, int revents);

  struct ev_loop* loop_;
  Options options_;
  PGconn* conn_ = nullptr;
  Phase phase_ = Phase::kIdle;
  std::optional<bool> up_;
  std::string problem_;
  ev_timer tick_;
  ev_timer timeout_;
  ev_io io_;
};

}  // namespace awc::db

#endif  // AWC_DB_PROBE_H_
