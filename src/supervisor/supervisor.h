// Supervisor: the parent process of the pre-fork tree (docs/ARCHITECTURE.md,
// "Process tree").
//
// Contract:
//  - Runs kinds of children (ChildSpec): the workers, one per slot, and any
//    others (the scheduler). Each child runs its kind's `main(index)` and
//    exits with its return value. `main` starts with SIGTERM, SIGINT, SIGQUIT,
//    SIGHUP and SIGCHLD blocked and at their default dispositions, and with
//    every descriptor above 2 closed; it unblocks them once its own
//    handlers are in place (process/child_process.h). Children get
//    PR_SET_PDEATHSIG(SIGTERM), so they finish their job and stop when the
//    parent dies.
//  - Reaps every child and logs its exit ("<kind> exited": pid, slot, exit
//    code or signal). While running, a dead child is replaced in its slot
//    after a per-slot backoff: 0.1 s doubling to 30 s while children keep
//    dying within 60 s of their start, back to 0.1 s after one lived 60 s.
//  - A persistent failure is not an endless restart loop: once every worker
//    slot has, for give_up_after seconds, only had workers that exited
//    non-zero within 60 s of their start (a worker that cannot open the
//    store exits 1; one killed by a signal does not count), the master
//    logs that it gives up, shuts down gracefully and exits 1, so that the
//    service manager sees a failed service. A slot whose worker lived 60 s,
//    or ended otherwise, starts over.
//    A kind may name an exit code that means "gave up a role on purpose"
//    (the scheduler's leadership lost): such a child is replaced at once,
//    its backoff untouched, and it is not counted as a restart.
//  - Shutdown is a state machine: kRunning -> kDraining on SIGTERM/SIGINT
//    (SIGTERM relayed to every child; each finishes its job and exits 0)
//    or kQuitting on SIGQUIT (relayed; children exit at once); the parent
//    returns 0 once every child has been reaped. A repeated SIGTERM/SIGINT
//    does not abandon jobs; SIGQUIT during a drain escalates to kQuitting.
//  - SIGHUP reloads, the nginx way (docs/operations.md, "Reload"): the
//    reload function reads the configuration again; when it fails the
//    error is logged and everything keeps running unchanged. Otherwise the
//    next generation of children is forked first, then every child of the
//    running one is sent SIGTERM and finishes its job; retired children
//    are not replaced. Worker status slots of retiring workers stay theirs
//    until they exit, so the new workers take free ones; a reload that
//    does not find enough free slots is refused. Without a reload
//    function SIGHUP is logged and ignored.
//  - Signal handling is libev's: handlers only flag, callbacks run in the
//    loop. Serves /metrics, /healthz, /readyz when a listen address is set;
//    /readyz is 503 while shutting down, while no worker runs or none is
//    connected, while a worker's session cannot write (the status table's
//    db_read_only), and while the master's own probe finds the database
//    unreachable (a busy worker may not notice for minutes) or unfit; the
//    probe's warnings follow, and Options::readiness_note ends the body,
//    either way.
//  - sd_notify: READY=1 after all children are forked, STATUS= updates,
//    RELOADING=1 and READY=1 around a reload, STOPPING=1 on shutdown.
#ifndef AWC_SUPERVISOR_SUPERVISOR_H_
#define AWC_SUPERVISOR_SUPERVISOR_H_

#include <ev.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/probe.h"
#include "http/http_server.h"
#include "http/listen_address.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "supervisor/notify.h"

namespace awc::supervisor {

class Supervisor {
 public:
  using ChildMain = std::function<int(int index)>;

  // One kind of child process. Indexes are 0-based; events show slot
  // index + 1.
  struct ChildSpec {
    std::string name;  // "<name> started", "<name> exited"
    int count = 1;
    ChildMain main;
    // An exit with this code is replaced at once, without backoff.
    std::optional<int> restart_at_once_code;
    // Run in the parent when a child of this kind was forked, and after one
    // was reaped: the shared state it publishes is the parent's to reset.
    std::function<void(int index)> on_start;
    std::function<void(int index)> on_exit;
    // A fragment of the sd_notify STATUS= line ("" for none).
    std::function<std::string()> status;
  };

  struct Options {
    int slots = 1;                                      // worker processes
    std::optional<http::ListenAddress> metrics_listen;  // none: no listener
    double backoff_min = 0.1;
    double backoff_max = 30.0;
    double stable_after = 60.0;  // a child that lived this long resets backoff
    // Once every worker slot has, for this long, had only lives that ended
    // in a non-zero exit (each shorter than stable_after), the master
    // gives up and exits 1; 0 never gives up.
    double give_up_after = 300.0;
    // With a listener and a connection string, the master checks the
    // database itself for /readyz (db/probe.h): reachable, writable, and
    // fit for this binary (its schema version); its warnings (worker ids
    // on more than one host) are added to the answer.
    db::Probe::Options probe;
    // Lines /readyz adds to its answer, ready or not ("" for none): how
    // the workers find new jobs when they cannot be notified (behind a
    // transaction pooler, AWC_DATABASE_POOL_MODE).
    std::string readiness_note;
    // How long a graceful stop may wait for jobs in flight beyond the
    // service manager's stop timeout (EXTEND_TIMEOUT_USEC): one job lease,
    // after which an unfinished job would be reclaimed anyway.
    double drain_allowance = 0;
  };

  // The children one reading of the configuration asks for.
  struct Generation {
    Options options;  // metrics_listen is read at Start() only
    ChildMain worker_main;
    std::vector<ChildSpec> others;
    // Run in the master when this generation replaces the running one.
    std::function<void()> on_run;
  };
  // Reads the configuration again: the next generation, or why the
  // configuration cannot be used.
  using ReloadFn = std::function<Result<Generation>()>;

  // The workers run `worker_main(slot)` and report in `status`, whose
  // size bounds how many workers may run at once across a reload; `others`
  // are the other kinds of children.
  Supervisor(Options options, obs::Metrics* metrics,
             obs::WorkerStatusTable* status, ChildMain worker_main,
             std::vector<ChildSpec> others = {});
  ~Supervisor();

  // What SIGHUP runs (see the contract above).
  void SetReload(ReloadFn reload) { reload_ = std::move(reload); }

  // Binds the metrics listener, installs the signal watchers and forks the
  // children. An error (e.g. the listen address is taken) forks nothing.
  Status Start();

  // Runs until every child has exited after a shutdown signal, or after
  // the master gave up (see the contract); returns the process exit code:
  // 0, or 1 after giving up.
  int Run();

  enum class State { kRunning, kDraining, kQuitting };

 private:
  struct Slot;
  struct Kind {
    ChildSpec spec;
    bool workers = false;
  };

  // Adds the kinds and slots of a generation; workers take the free status
  // slots from the lowest.
  void AddGeneration(ChildMain worker_main, std::vector<ChildSpec> others);
  void AddKind(ChildSpec spec, bool workers);
  void Spawn(Slot& slot);
  void Reload();
  // Worker status slots not held by a live worker.
  int FreeWorkerSlots() const;
  bool IsWorker(const Slot& slot) const;
  void OnChildExit(pid_t pid, int wstatus);
  void OnSignal(int signum);
  void OnTick();
  // While draining, asks the service manager for more time to stop, for
  // at most options_.drain_allowance.
  void ExtendDrain();
  // `signum` is the signal that asked for it, or 0.
  void BeginShutdown(State next, int signum);
  // Whether every worker slot of the running configuration has been in
  // its run of failed lives for at least `secs` (never when secs <= 0).
  bool EveryWorkerFailingFor(double secs) const;
  // Logs why and shuts down gracefully; Run() then returns 1.
  void GiveUp();
  http::HttpResponse Route(const std::string& path);
  std::string StatusLine() const;
  int LiveChildren() const;
  int LiveWorkers() const;
  // Worker slots of the current configuration whose process is gone.
  int DownWorkers() const;
  int RetiringChildren() const;

  static void SignalCb(struct ev_loop* loop, struct ev_signal* w, int revents);
  static void ChildCb(struct ev_loop* loop, struct ev_child* w, int revents);
  static void RestartCb(struct ev_loop* loop, struct ev_timer* w, int revents);
  static void TickCb(struct ev_loop* loop, struct ev_timer* w, int revents);
  static void WatchdogCb(struct ev_loop* loop, struct ev_timer* w, int revents);

  Options options_;
  obs::Metrics* metrics_;
  obs::WorkerStatusTable* status_;
  ReloadFn reload_;
  // Every kind ever added; those of retired generations stay for their
  // last children's exit.
  std::vector<Kind> kinds_;
  size_t running_kinds_ = 0;  // the first kind of the running generation
  struct ev_loop* loop_;
  State state_ = State::kRunning;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<http::HttpServer> http_;
  std::unique_ptr<db::Probe> db_probe_;  // with the listener and a database
  ev_signal signals_[4];
  ev_child child_watcher_;
  ev_timer tick_;
  ev_timer watchdog_;
  double drain_started_ = 0;
  int exit_code_ = 0;
  Notifier notifier_;
  pid_t self_;
};

}  // namespace awc::supervisor

#endif  // AWC_SUPERVISOR_SUPERVISOR_H_
