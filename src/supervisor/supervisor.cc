#include "supervisor/supervisor.h"

#include <bsd/unistd.h>
#include <ev.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "common/env.h"
#include "obs/log.h"

namespace awc::supervisor {
namespace {

double Now() { return Env::Default()->NowMonotonic(); }

const char* SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? abbrev : "?";
}

}  // namespace

struct Supervisor::Slot {
  Supervisor* owner = nullptr;
  size_t kind = 0;  // into kinds_
  int index = 0;    // workers: the status slot; others: within the kind
  pid_t pid = 0;
  double started = 0;
  double backoff = 0;
  bool restart_counts = true;  // the next restart is one of a crash
  bool retiring = false;       // of a replaced generation: not restarted
  // When the slot's unbroken run of lives that ended in a non-zero exit
  // began (the start of the first); 0 once one lived stable_after or ended
  // otherwise.
  double failing_since = 0;
  ev_timer restart;
};

Supervisor::Supervisor(Options options, obs::Metrics* metrics,
                       obs::WorkerStatusTable* status, ChildMain worker_main,
                       std::vector<ChildSpec> others)
    : options_(std::move(options)),
      metrics_(metrics),
      status_(status),
      loop_(ev_default_loop(EVFLAG_AUTO)),
      self_(getpid()) {
  AddGeneration(std::move(worker_main), std::move(others));
}

Supervisor::~Supervisor() = default;

void Supervisor::AddGeneration(ChildMain worker_main,
                               std::vector<ChildSpec> others) {
  running_kinds_ = kinds_.size();
  // The workers publish their phase in the status table; the parent resets
  // a slot whenever its process starts or ends.
  ChildSpec workers;
  workers.name = "worker";
  workers.count = options_.slots;
  workers.main = std::move(worker_main);
  workers.on_start = [this](int n) {
    if (status_ == nullptr) return;
    status_->SetPhase(n, obs::WorkerPhase::kConnecting);
    status_->slot(n).db_ok.store(false, std::memory_order_relaxed);
    status_->slot(n).db_read_only.store(false, std::memory_order_relaxed);
  };
  workers.on_exit = [this](int n) {
    if (status_ == nullptr) return;
    status_->SetPhase(n, obs::WorkerPhase::kDown);
    status_->slot(n).db_ok.store(false, std::memory_order_relaxed);
    status_->slot(n).db_read_only.store(false, std::memory_order_relaxed);
    // A job it held is handed back by a live worker, and its background
    // place is free again (worker_status.h).
    status_->OrphanJob(n);
    status_->ReleaseBackgroundPlace(n);
  };
  AddKind(std::move(workers), true);
  for (ChildSpec& spec : others) AddKind(std::move(spec), false);
}

bool Supervisor::IsWorker(const Slot& slot) const {
  return kinds_[slot.kind].workers;
}

void Supervisor::AddKind(ChildSpec spec, bool workers) {
  size_t kind = kinds_.size();
  int count = spec.count;
  kinds_.push_back({std::move(spec), workers});
  int next_index = 0;
  for (int n = 0; n < count; ++n) {
    int index = n;
    if (workers) {
      // Retiring workers keep their status slots until they exit.
      auto taken = [this](int i) {
        return std::any_of(slots_.begin(), slots_.end(), [&](const auto& s) {
          return IsWorker(*s) && s->index == i;
        });
      };
      while (taken(next_index)) ++next_index;
      index = next_index;
    }
    auto slot = std::make_unique<Slot>();
    slot->owner = this;
    slot->kind = kind;
    slot->index = index;
    slot->backoff = options_.backoff_min;
    ev_timer_init(&slot->restart, RestartCb, 0, 0);
    slot->restart.data = slot.get();
    slots_.push_back(std::move(slot));
  }
}

int Supervisor::LiveChildren() const {
  int n = 0;
  for (const auto& slot : slots_) n += slot->pid > 0 ? 1 : 0;
  return n;
}

int Supervisor::LiveWorkers() const {
  int n = 0;
  for (const auto& slot : slots_) n += IsWorker(*slot) && slot->pid > 0;
  return n;
}

int Supervisor::DownWorkers() const {
  int n = 0;
  for (const auto& slot : slots_) {
    n += IsWorker(*slot) && !slot->retiring && slot->pid <= 0;
  }
  return n;
}

int Supervisor::RetiringChildren() const {
  int n = 0;
  for (const auto& slot : slots_) n += slot->retiring ? 1 : 0;
  return n;
}

int Supervisor::FreeWorkerSlots() const {
  if (status_ == nullptr) return std::numeric_limits<int>::max();
  return status_->size() - LiveWorkers();
}

void Supervisor::Spawn(Slot& slot) {
  fflush(nullptr);
  // Signals stay blocked across fork() until the child has replaced the
  // parent's (libev) handlers with its own; a SIGTERM sent in between is
  // then delivered to the child's handler instead of being lost.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD}) {
    sigaddset(&block, sig);
  }
  sigprocmask(SIG_BLOCK, &block, &old);
  pid_t pid = fork();
  if (pid != 0) sigprocmask(SIG_SETMASK, &old, nullptr);
  const ChildSpec& spec = kinds_[slot.kind].spec;
  if (pid < 0) {
    obs::Error("supervisor", "fork failed")
        .Str("child", spec.name)
        .Int("slot", slot.index + 1)
        .Str("error", strerror(errno))
        .Emit();
    ev_timer_set(&slot.restart, slot.backoff, 0);
    ev_timer_start(loop_, &slot.restart);
    slot.backoff = std::min(options_.backoff_max, slot.backoff * 2);
    return;
  }
  if (pid == 0) {
    // Child: die with the parent, drop what belongs to the parent (its
    // event loop, the HTTP listener), then run the kind's main.
    for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD}) {
      signal(sig, SIG_DFL);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != self_) _exit(0);
    close_range(3, ~0U, 0);
    int code = spec.main(slot.index);
    fflush(nullptr);
    _exit(code);
  }
  slot.pid = pid;
  slot.started = Now();
  if (spec.on_start) spec.on_start(slot.index);
  obs::Info("supervisor", spec.name + " started")
      .Int("slot", slot.index + 1)
      .Int("pid", pid)
      .Emit();
}

void Supervisor::OnChildExit(pid_t pid, int wstatus) {
  auto it = std::find_if(slots_.begin(), slots_.end(),
                         [pid](const auto& s) { return s->pid == pid; });
  if (it == slots_.end()) return;  // not one of ours (e.g. a grandchild)
  Slot& slot = **it;
  const ChildSpec& spec = kinds_[slot.kind].spec;
  slot.pid = 0;
  double lived = Now() - slot.started;
  if (spec.on_exit) spec.on_exit(slot.index);
  bool clean = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
  // A child that gave up its role on purpose is replaced at once.
  bool at_once = WIFEXITED(wstatus) && spec.restart_at_once_code &&
                 WEXITSTATUS(wstatus) == *spec.restart_at_once_code;
  bool stopping = state_ != State::kRunning || slot.retiring;
  bool expected = at_once || (stopping && (clean || WIFSIGNALED(wstatus)));
  obs::Event event = expected ? obs::Info("supervisor", spec.name + " exited")
                              : obs::Error("supervisor", spec.name + " exited");
  event.Int("slot", slot.index + 1).Int("pid", pid).Num("lived_s", lived);
  if (WIFEXITED(wstatus)) {
    event.Int("exit_code", WEXITSTATUS(wstatus));
  } else if (WIFSIGNALED(wstatus)) {
    event.Str("signal", SignalName(WTERMSIG(wstatus)));
  }
  slot.restart_counts = !at_once;
  bool gave_up = false;
  if (IsWorker(slot) && !slot.retiring && state_ == State::kRunning) {
    bool failed = WIFEXITED(wstatus) && !clean && !at_once;
    if (!failed || lived >= options_.stable_after) {
      slot.failing_since = 0;
    } else if (slot.failing_since == 0) {
      slot.failing_since = slot.started;
    }
    gave_up = failed && EveryWorkerFailingFor(options_.give_up_after);
  }
  if (gave_up) {
    event.Bool("giving_up", true);
  } else if (slot.retiring) {
    event.Bool("retired", true);
  } else if (state_ == State::kRunning && at_once) {
    event.Num("restart_in_s", 0);
    ev_timer_set(&slot.restart, 0, 0);
    ev_timer_start(loop_, &slot.restart);
  } else if (state_ == State::kRunning) {
    if (lived >= options_.stable_after) slot.backoff = options_.backoff_min;
    double delay = slot.backoff;
    slot.backoff = std::min(options_.backoff_max, slot.backoff * 2);
    event.Num("restart_in_s", delay);
    ev_timer_set(&slot.restart, delay, 0);
    ev_timer_start(loop_, &slot.restart);
  }
  event.Emit();
  if (gave_up) GiveUp();
  if (slot.retiring) slots_.erase(it);
  if (state_ != State::kRunning && LiveChildren() == 0) {
    ev_break(loop_, EVBREAK_ALL);
  }
}

bool Supervisor::EveryWorkerFailingFor(double secs) const {
  if (secs <= 0) return false;
  bool any = false;
  for (const auto& s : slots_) {
    if (!IsWorker(*s) || s->retiring) continue;
    if (s->failing_since == 0 || Now() - s->failing_since < secs) return false;
    any = true;
  }
  return any;
}

void Supervisor::GiveUp() {
  obs::Error("supervisor", "every worker keeps failing: giving up")
      .Num("failing_s", options_.give_up_after)
      .Str("hint", "the workers' errors above say why; the master exits 1")
      .Emit();
  exit_code_ = 1;
  BeginShutdown(State::kDraining, 0);
}

void Supervisor::BeginShutdown(State next, int signum) {
  if (state_ == next || (state_ == State::kQuitting)) {
    obs::Info("supervisor",
              next == State::kDraining
                  ? "shutdown already in progress; waiting for jobs in flight "
                    "(SIGQUIT stops at once)"
                  : "fast shutdown already in progress")
        .Str("signal", SignalName(signum))
        .Emit();
    return;
  }
  state_ = next;
  for (auto& slot : slots_) ev_timer_stop(loop_, &slot->restart);
  int relay = next == State::kDraining ? SIGTERM : SIGQUIT;
  for (auto& slot : slots_) {
    if (slot->pid > 0) kill(slot->pid, relay);
  }
  obs::Event begun = obs::Info(
      "supervisor", next == State::kDraining
                        ? "graceful shutdown: workers finish their jobs"
                        : "fast shutdown: workers exit now");
  if (signum != 0) begun.Str("signal", SignalName(signum));
  begun.Int("workers", LiveWorkers()).Emit();
  notifier_.Stopping(StatusLine());
  drain_started_ = Now();
  ExtendDrain();
  if (LiveChildren() == 0) ev_break(loop_, EVBREAK_ALL);
}

void Supervisor::OnSignal(int signum) {
  switch (signum) {
    case SIGTERM:
    case SIGINT:
      BeginShutdown(State::kDraining, signum);
      break;
    case SIGQUIT:
      BeginShutdown(State::kQuitting, signum);
      break;
    case SIGHUP:
      Reload();
      break;
  }
}

void Supervisor::Reload() {
  if (state_ != State::kRunning) {
    obs::Info("supervisor", "SIGHUP ignored: shutting down").Emit();
    return;
  }
  if (!reload_) {
    obs::Info("supervisor", "SIGHUP ignored: nothing to reload").Emit();
    return;
  }
  obs::Info("supervisor", "reloading configuration").Emit();
  notifier_.Reloading("reloading configuration");
  Result<Generation> next = reload_();
  Status refused = next.status();
  if (refused.ok() && next->options.slots > FreeWorkerSlots()) {
    refused = Status::FailedPrecondition(
        std::to_string(LiveWorkers()) + " workers are still running and only " +
        std::to_string(status_->size()) +
        " may run at once; reload again once earlier ones have finished");
  }
  if (!refused.ok()) {
    obs::Error("supervisor", "reload failed; the running configuration stays")
        .Str("error", refused.message())
        .Emit();
    notifier_.Ready(StatusLine());
    return;
  }

  // Children of the running generation that are waiting to be restarted
  // are simply dropped; live ones finish their job once the new
  // generation runs, so there is no moment without a worker.
  std::erase_if(slots_, [this](const std::unique_ptr<Slot>& slot) {
    if (slot->pid > 0) return false;
    ev_timer_stop(loop_, &slot->restart);
    return true;
  });
  std::vector<Slot*> retiring;
  for (auto& slot : slots_) {
    if (!slot->retiring) retiring.push_back(slot.get());
  }
  obs::Info("supervisor", "configuration reloaded")
      .Int("workers", next->options.slots)
      .Int("retiring", static_cast<int64_t>(retiring.size()))
      .Emit();
  // The new children inherit what on_run sets (the log level).
  if (next->on_run) next->on_run();
  std::optional<http::ListenAddress> listen = options_.metrics_listen;
  options_ = next->options;
  options_.metrics_listen = listen;
  size_t first = slots_.size();
  AddGeneration(std::move(next->worker_main), std::move(next->others));
  for (size_t n = first; n < slots_.size(); ++n) Spawn(*slots_[n]);
  for (Slot* slot : retiring) {
    slot->retiring = true;
    kill(slot->pid, SIGTERM);
  }
  notifier_.Ready(StatusLine());
}

// Seconds between EXTEND_TIMEOUT_USEC messages is 1 (the tick); each
// extends by this much, so a master that stops sending them is stopped by
// the service manager soon after.
constexpr double kExtendBy = 5.0;

void Supervisor::OnTick() {
  if (metrics_ != nullptr) metrics_->SetWorkersRunning(LiveWorkers());
  notifier_.Status(StatusLine());
  ExtendDrain();
}

void Supervisor::ExtendDrain() {
  if (state_ != State::kDraining) return;
  double left = options_.drain_allowance - (Now() - drain_started_);
  notifier_.ExtendTimeout(std::min(kExtendBy, left));
}

Status Supervisor::Start() {
  setproctitle("-awc-worker: master");
  signal(SIGPIPE, SIG_IGN);
  const int kSignals[] = {SIGTERM, SIGINT, SIGQUIT, SIGHUP};
  for (size_t n = 0; n < 4; ++n) {
    ev_signal_init(&signals_[n], SignalCb, kSignals[n]);
    signals_[n].data = this;
    ev_signal_start(loop_, &signals_[n]);
  }
  ev_child_init(&child_watcher_, ChildCb, 0, 0);
  child_watcher_.data = this;
  ev_child_start(loop_, &child_watcher_);
  ev_timer_init(&tick_, TickCb, 1.0, 1.0);
  tick_.data = this;
  ev_timer_start(loop_, &tick_);
  if (double every = notifier_.watchdog_interval(); every > 0) {
    ev_timer_init(&watchdog_, WatchdogCb, 0, every);
    watchdog_.data = this;
    ev_timer_start(loop_, &watchdog_);
  }

  if (options_.metrics_listen) {
    const http::ListenAddress& addr = *options_.metrics_listen;
    AWC_ASSIGN_OR_RETURN(
        http_, http::HttpServer::Start(
                   loop_, addr.host, addr.port,
                   [this](const std::string& path) { return Route(path); }));
    if (!options_.probe.conninfo.empty()) {
      db_probe_ = std::make_unique<db::Probe>(loop_, options_.probe);
    }
  }
  for (auto& slot : slots_) Spawn(*slot);
  // After the fork: the children need not inherit its connection.
  if (db_probe_) db_probe_->Start();
  obs::Event running = obs::Info("supervisor", "supervisor running");
  running.Int("workers", options_.slots);
  for (size_t k = 1; k < kinds_.size(); ++k) {
    running.Int(kinds_[k].spec.name, kinds_[k].spec.count);
  }
  running
      .Str("metrics", options_.metrics_listen
                          ? options_.metrics_listen->ToString()
                          : std::string())
      .Emit();
  notifier_.Ready(StatusLine());
  return Status::OK();
}

int Supervisor::Run() {
  ev_run(loop_, 0);
  if (db_probe_) db_probe_->Stop();
  if (http_) http_->Stop();
  obs::Info("supervisor", "shut down").Int("exit_code", exit_code_).Emit();
  return exit_code_;
}

void Supervisor::SignalCb(struct ev_loop*, ev_signal* w, int) {
  static_cast<Supervisor*>(w->data)->OnSignal(w->signum);
}

void Supervisor::ChildCb(struct ev_loop*, ev_child* w, int) {
  static_cast<Supervisor*>(w->data)->OnChildExit(w->rpid, w->rstatus);
}

void Supervisor::RestartCb(struct ev_loop*, ev_timer* w, int) {
  Slot* slot = static_cast<Slot*>(w->data);
  Supervisor* self = slot->owner;
  if (self->state_ != State::kRunning || slot->pid > 0) return;
  if (self->metrics_ != nullptr && slot->restart_counts) {
    self->metrics_->CountRestart();
  }
  self->Spawn(*slot);
}

void Supervisor::WatchdogCb(struct ev_loop*, ev_timer* w, int) {
  static_cast<Supervisor*>(w->data)->notifier_.Watchdog();
}

void Supervisor::TickCb(struct ev_loop*, ev_timer* w, int) {
  static_cast<Supervisor*>(w->data)->OnTick();
}

}  // namespace awc::supervisor
