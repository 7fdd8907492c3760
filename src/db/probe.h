// Probe: the master's own check that the database answers, for /readyz
// (docs/observability.md, "HTTP endpoints"). A worker notices a lost
// database only at its next round trip, which a busy one may not make for
// minutes; the master asks on its own.
//
// Contract:
//  - Every `interval_secs` it runs, on a connection of its own opened and
//    used without blocking (libpq's non-blocking connect and query, driven
//    by watchers on the master's libev loop), first the session check of
//    db/writable.h, then `statements` one after another.
//  - A check that fails, or has not finished after `timeout_secs`, marks
//    the database unreachable and drops the connection; the next check
//    connects again. A check that gets its answers marks it reachable. A
//    change either way is logged (never with the connection string).
//  - A session that cannot write (db/writable.h) is reachable but not fit
//    for use: problem() says why, the statements are not run, and the
//    connection is dropped, so that the next check connects again (and a
//    multi-host URL, or DNS that moved, may lead elsewhere). The
//    connection string gets target_session_attrs=read-write as
//    PgConn::Connect's does (NeedsReadWriteTarget).
//  - Otherwise the statements' answers go to the judge, whose verdict is
//    problem() (the daemon's judge compares the schema version with the
//    binary's) and warnings() (lines that leave the database fit for use:
//    the daemon's name worker ids in use on more than one host). A change
//    of problem is logged; the judge reports its own warnings. A statement
//    marked `may_fail` that fails gives the judge an answer with `failed`
//    set; any other failure fails the check, and the warnings are cleared.
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
#include <vector>

namespace awc::db {

class Probe {
 public:
  // One statement of a check, with its text parameters ($1, ...).
  struct Statement {
    std::string sql;
    std::vector<std::string> params;
    // Its failure is an answer (Answer::failed), not the check's.
    bool may_fail = false;
  };
  // What one statement returned: its rows, each value as text.
  struct Answer {
    std::vector<std::vector<std::string>> rows;
    bool failed = false;
  };
  struct Verdict {
    std::string problem;  // "" when the database is fit for use
    std::vector<std::string> warnings;
  };

  struct Options {
    std::string conninfo;          // DATABASE_URL
    std::string application_name;  // the probe's session
    double interval_secs = 2;
    double timeout_secs = 5;
    // Run after the session check, in order; their answers, one each in
    // the same order, go to the judge.
    std::vector<Statement> statements;
    std::function<Verdict(const std::vector<Answer>& answers)> judge;
  };

  Probe(struct ev_loop* loop, Options options);
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Starts checking: the first check now, then every interval.
  void Start();
  void Stop();

  std::optional<bool> up() const { return up_; }
  // Why the database is not fit for use; "" while it is, or unknown.
  const std::string& problem() const { return problem_; }
  // The judge's warnings on the last answers; none after a failed check.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  enum class Phase { kIdle, kConnecting, kQuerying };

  void Begin();
  // Drives the connect or the query after an event on the socket.
  void Step();
  // Sends statement `next_` (0: the session check).
  void SendNext();
  // Statement next_ has returned all its results.
  void Answered();
  void End(bool ok, const std::string& error);
  void SetProblem(std::string problem);
  void Drop();
  void Watch(int events);

  static void OnTick(struct ev_loop* loop, ev_timer* w, int revents);
  static void OnTimeout(struct ev_loop* loop, ev_timer* w, int revents);
  static void OnIo(struct ev_loop* loop, ev_io* w, int revents);

  struct ev_loop* loop_;
  Options options_;
  PGconn* conn_ = nullptr;
  Phase phase_ = Phase::kIdle;
  // The statement in flight: 0 the session check, n options_.statements[n-1].
  size_t next_ = 0;
  Answer answer_;      // of the statement in flight
  std::string error_;  // its error, if it failed
  std::vector<Answer> answers_;
  std::optional<bool> up_;
  std::string problem_;
  std::vector<std::string> warnings_;
  ev_timer tick_;
  ev_timer timeout_;
  ev_io io_;
};

}  // namespace awc::db

#endif  // AWC_DB_PROBE_H_
