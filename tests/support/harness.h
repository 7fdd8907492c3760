// Test harness for the integration tests: a fresh database per test on the
// throwaway cluster that `make check` starts (pg_virtualenv exports PGHOST,
// PGPORT, PGUSER, PGPASSWORD), the daemon as a real process, and polling.
#ifndef AWC_TESTS_SUPPORT_HARNESS_H_
#define AWC_TESTS_SUPPORT_HARNESS_H_

#include <jansson.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/pg.h"
#include "handlers/payload.h"

namespace awc::testing {

// Polls `done` every 20 ms until it holds or `timeout_s` passes. Timeouts
// are generous upper bounds for a loaded machine, never measurements.
bool WaitUntil(const std::function<bool()>& done, double timeout_s = 30);

// The environment variable `name`, or `fallback` when it is unset or empty.
std::string EnvOr(const char* name, const char* fallback);

// Makes a new directory $TMPDIR/<tag>-XXXXXX for a server a test starts
// (its data, configuration and log); "" after reporting a failure. The
// caller removes it.
std::string MakeServerDir(const std::string& tag);

// The connection URL of database `db` on the test cluster (with password).
std::string ClusterUrl(const std::string& db);
// The test cluster's port (PGPORT).
int ClusterPort();
// A URL of database `db` naming several servers on 127.0.0.1, at `ports`
// in that order, with the test cluster's user and password; no
// target_session_attrs.
std::string MultiHostUrl(const std::string& db, const std::vector<int>& ports);

class TestDatabase {
 public:
  // Creates a new empty database; the destructor drops it.
  TestDatabase();
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& url() const { return url_; }

  std::unique_ptr<db::PgConn> Connect(
      const std::string& app = "awc-test") const;
  // A session of this database idle in transaction with an xid, as a
  // forgotten psql or a long report is: it holds the database's MVCC
  // horizon until its Rollback() or until it is dropped. Its backend's pid
  // goes to `pid` when given.
  std::unique_ptr<db::PgConn> HoldHorizon(const std::string& app,
                                          std::string* pid = nullptr) const;

  // Runs one statement on a shared connection and returns the first column
  // of the first row ("" when there is no row; "NULL" for SQL NULL).
  std::string Scalar(const std::string& sql, const db::Params& params = {});
  int64_t Int(const std::string& sql, const db::Params& params = {});
  // Runs a statement; fails the test if it errors.
  void Exec(const std::string& sql, const db::Params& params = {});
  // Runs a statement from the cluster's maintenance database (for what
  // cannot be done from inside this database, e.g. ALTER DATABASE).
  void AdminExec(const std::string& sql);

  // Applies the embedded migrations.
  void Migrate();
  // Makes the new sessions of this database read-only
  // (default_transaction_read_only), or no longer; sessions already open
  // keep what they had.
  void SetReadOnlyForNewSessions(bool on);
  // Inserts a job the way a producer does; returns its id.
  int64_t Enqueue(const std::string& kind, const std::string& payload,
                  int max_attempts = 5);
  std::string JobState(int64_t id);

 private:
  std::string name_;
  std::string url_;
  std::unique_ptr<db::PgConn> conn_;
};

// The path of a binary built next to the tests.
std::string TestDaemonPath();     // awc-worker-testd
std::string ShippedDaemonPath();  // awc-worker
std::string AwcctlPath();         // awcctl

class DaemonProcess {
 public:
  struct Options {
    std::string binary = TestDaemonPath();
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    // Stderr as systemd connects it to the journal: JOURNAL_STREAM names
    // the file stderr is captured to ("<device>:<inode>").
    bool journal_stream = false;
  };

  // Starts the process in its own process group, stdout and stderr captured
  // to files. The environment is this process's, minus DATABASE_URL, AWC_*,
  // NOTIFY_SOCKET and JOURNAL_STREAM, plus `env`.
  explicit DaemonProcess(Options options);
  // Kills the whole process group if it is still running.
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int sig);
  // Waits for the process to exit; its wait status, or nullopt on timeout.
  std::optional<int> WaitExit(double timeout_s = 30);
  bool running();

  std::string Stdout() const;
  std::string Stderr() const;
  // The JSON lines of stderr (lines that do not parse are skipped).
  std::vector<JsonPtr> Events() const;
  // Events whose "msg" is `msg` (and "id" is `id`, if not empty).
  std::vector<JsonPtr> EventsWith(const std::string& msg,
                                  const std::string& id = "") const;
  bool WaitForEvent(const std::string& msg, double timeout_s = 30,
                    size_t count = 1);

  // Live processes whose parent is the daemon.
  std::vector<pid_t> Children() const;
  // The worker whose process title shows job `job_id` in flight, waited
  // for up to `timeout_s`; 0 when none showed it.
  pid_t ChildRunning(int64_t job_id, double timeout_s = 30) const;

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::string out_path_;
  std::string err_path_;
};

// Options for a test-daemon fleet on `db`: memory:// store, a short poll
// interval, `concurrency` workers, no scheduler (its tests turn it on with
// {"AWC_SCHEDULER", "on"}: its planners would add jobs to other tests'
// databases), plus `extra` settings (which win).
DaemonProcess::Options FleetOptions(
    const TestDatabase& db, int concurrency,
    std::vector<std::pair<std::string, std::string>> extra = {});

// A fresh directory under $TMPDIR, removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to path()/relative, creating directories on the way.
  void Write(const std::string& relative, const std::string& content) const;

 private:
  std::string path_;
};

// Makes the object store at `url` with `awcctl store init URL` (`env`: the
// S3 settings of an s3:// store), as an operator does before the daemon or
// an import can use it. False (and a test failure) when awcctl fails.
bool InitStore(const std::string& url,
               std::vector<std::pair<std::string, std::string>> env = {});

// Runs `binary` with `args` and `env` (added to this process's environment,
// minus DATABASE_URL/AWC_*) to completion; exit code (-1 when it did not
// exit normally within the timeout), stdout and stderr.
struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};
CommandResult RunProcess(const std::string& binary,
                         std::vector<std::string> args,
                         std::vector<std::pair<std::string, std::string>> env);
inline CommandResult RunAwcctl(
    std::vector<std::string> args,
    std::vector<std::pair<std::string, std::string>> env) {
  return RunProcess(AwcctlPath(), std::move(args), std::move(env));
}

// Runs `binary` like RunProcess, but on a new pseudo-terminal: its standard
// input, output and error are the terminal (so `out` holds both, and `err`
// is empty). Once its output contains `prompt`, `typed` and a newline are
// typed; an empty `prompt` types nothing.
CommandResult RunOnTerminal(
    const std::string& binary, std::vector<std::string> args,
    std::vector<std::pair<std::string, std::string>> env,
    const std::string& prompt, const std::string& typed);

// The path of psql, the PostgreSQL client the tests apply SQL files with.
std::string PsqlPath();

// Whether a plan in EXPLAIN's JSON format reads the index `index`.
bool PlanUsesIndex(const std::string& plan_json, const std::string& index);
// Every node of such a plan, depth first: "Seq Scan on jobs", "Index Scan
// using jobs_finished_idx", ...; empty when the text does not parse.
std::vector<std::string> PlanNodes(const std::string& plan_json);

// The value of the series `name{labels}` in a Prometheus text body, or -1.
double MetricValue(const std::string& body, const std::string& series);
// awc_background_jobs_total{kind, outcome} in a Prometheus text body, or -1.
double JobsTotal(const std::string& body, const std::string& kind,
                 const std::string& outcome);

// Field accessors for events.
std::string Str(const json_t* obj, const char* key);
int64_t Int(const json_t* obj, const char* key);
double Num(const json_t* obj, const char* key);

// The process title of `pid` (/proc/<pid>/cmdline as shown by ps).
std::string ProcessTitle(pid_t pid);
// Parent pid of `pid`, or -1 once it is gone.
pid_t ParentOf(pid_t pid);
bool ProcessAlive(pid_t pid);

// A free TCP port on 127.0.0.1.
int FreePort();
// GET http://127.0.0.1:<port><path>; returns (status, body), status 0 when
// the connection failed.
std::pair<int, std::string> HttpGet(int port, const std::string& path);
// The body of GET /metrics on `port`; fails the test unless it is 200.
std::string ScrapeMetrics(int port);
// Sends `request` (a whole HTTP/1.0 request, as written) to
// 127.0.0.1:<port> and reads the reply to its end; status 0 when the
// connection failed.
struct HttpReply {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;
  // The value of header `name` (case-insensitive), "" when absent.
  std::string Header(const std::string& name) const;
};
HttpReply HttpExchange(int port, const std::string& request);

}  // namespace awc::testing

#endif  // AWC_TESTS_SUPPORT_HARNESS_H_
