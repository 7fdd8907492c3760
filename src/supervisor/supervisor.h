// Supervisor: the parent process of the pre-fork tree (docs/ARCHITECTURE.md,
// "Process tree").
//
// Contract:
//  - Forks one child per slot; each child runs `child_main(slot)` and exits
//    with its return value. child_main starts with SIGTERM, SIGINT, SIGQUIT,
//    SIGHUP and SIGCHLD blocked and at their default dispositions, and with
//    every descriptor above 2 closed; it unblocks them once its own
//    handlers are in place (worker/stop_flag.h). Children get
//    PR_SET_PDEATHSIG(SIGTERM), so they finish their job and stop when the
//    parent dies.
//  - Reaps every child and logs its exit (pid, slot, exit code or signal).
//    While running, a dead child is replaced in its slot after a per-slot
//    backoff: 0.1 s doubling to 30 s while children keep dying within 60 s
//    of their start, back to 0.1 s after one lived 60 s.
//  - Shutdown is a state machine: kRunning -> kDraining on SIGTERM/SIGINT
//    (SIGTERM relayed to every child; each finishes its job and exits 0)
//    or kQuitting on SIGQUIT (relayed; children exit at once); the parent
//    returns 0 once every child has been reaped. A repeated SIGTERM/SIGINT
//    does not abandon jobs; SIGQUIT during a drain escalates to kQuitting.
//  - Signal handling is libev's: handlers only flag, callbacks run in the
//    loop. Serves /metrics, /healthz, /readyz when a listen address is set;
//    /readyz is 503 while shutting down, while no worker runs or none is
//    connected, and while the master's own probe finds the database
//    unreachable (a busy worker may not notice for minutes).
//  - sd_notify: READY=1 after all children are forked, STATUS= updates,
//    STOPPING=1 on shutdown.
#ifndef AWC_SUPERVISOR_SUPERVISOR_H_
#define AWC_SUPERVISOR_SUPERVISOR_H_

#include <ev.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "obs/http_server.h"
#include "obs/listen_address.h"
#include "obs/metrics.h"
#include "obs/worker_status.h"
#include "supervisor/db_probe.h"
#include "supervisor/notify.h"

namespace awc::supervisor {

class Supervisor {
 public:
  using ChildMain = std::function<int(int slot)>;

  struct Options {
    int slots = 1;
    std::optional<obs::ListenAddress> metrics_listen;  // none: no listener
    double backoff_min = 0.1;
    double backoff_max = 30.0;
    double stable_after = 60.0;  // a child that lived this long resets backoff
    // With a listener, the master checks the database itself for /readyz
    // (db_probe.h) with this connection string and session name.
    std::string database_url;
    std::string probe_name;
    // How long a graceful stop may wait for jobs in flight beyond the
    // service manager's stop timeout (EXTEND_TIMEOUT_USEC): one job lease,
    // after which an unfinished job would be reclaimed anyway.
    double drain_allowance = 0;
  };

  Supervisor(Options options, obs::Metrics* metrics,
             obs::WorkerStatusTable* status, ChildMain child_main);
  ~Supervisor();

  // Binds the metrics listener, installs the signal watchers and forks the
  // children. An error (e.g. the listen address is taken) forks nothing.
  Status Start();

  // Runs until every child has exited after a shutdown signal; returns the
  // process exit code (0).
  int Run();

  enum class State { kRunning, kDraining, kQuitting };

 private:
  struct Slot;

  void Spawn(Slot& slot);
  void OnChildExit(pid_t pid, int wstatus);
  void OnSignal(int signum);
  void OnTick();
  // While draining, asks the service manager for more time to stop, for
  // at most options_.drain_allowance.
  void ExtendDrain();
  void BeginShutdown(State next, int signum);
  obs::HttpResponse Route(const std::string& path);
  std::string StatusLine() const;
  int LiveChildren() const;

  static void SignalCb(struct ev_loop* loop, struct ev_signal* w, int revents);
  static void ChildCb(struct ev_loop* loop, struct ev_child* w, int revents);
  static void RestartCb(struct ev_loop* loop, struct ev_timer* w, int revents);
  static void TickCb(struct ev_loop* loop, struct ev_timer* w, int revents);
  static void WatchdogCb(struct ev_loop* loop, struct ev_timer* w, int revents);

  Options options_;
  obs::Metrics* metrics_;
  obs::WorkerStatusTable* status_;
  ChildMain child_main_;
  struct ev_loop* loop_;
  State state_ = State::kRunning;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<obs::HttpServer> http_;
  std::unique_ptr<DbProbe> db_probe_;  // with the listener and a database
  ev_signal signals_[4];
  ev_child child_watcher_;
  ev_timer tick_;
  ev_timer watchdog_;
  double drain_started_ = 0;
  Notifier notifier_;
  pid_t self_;
};

}  // namespace awc::supervisor

#endif  // AWC_SUPERVISOR_SUPERVISOR_H_
