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
  int index = 0;
  pid_t pid = 0;
  double started = 0;
  double backoff = 0;
  ev_timer restart;
};

Supervisor::Supervisor(Options options, obs::Metrics* metrics,
                       obs::WorkerStatusTable* status, ChildMain child_main)
    : options_(std::move(options)),
      metrics_(metrics),
      status_(status),
      child_main_(std::move(child_main)),
      loop_(ev_default_loop(EVFLAG_AUTO)),
      self_(getpid()) {
  for (int n = 0; n < options_.slots; ++n) {
    auto slot = std::make_unique<Slot>();
    slot->owner = this;
    slot->index = n;
    slot->backoff = options_.backoff_min;
    ev_timer_init(&slot->restart, RestartCb, 0, 0);
    slot->restart.data = slot.get();
    slots_.push_back(std::move(slot));
  }
}

Supervisor::~Supervisor() = default;

int Supervisor::LiveChildren() const {
  int n = 0;
  for (const auto& slot : slots_) n += slot->pid > 0 ? 1 : 0;
  return n;
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
  if (pid < 0) {
    obs::Error("supervisor", "fork failed")
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
    // event loop, the HTTP listener), then become a worker.
    for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGCHLD}) {
      signal(sig, SIG_DFL);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != self_) _exit(0);
    close_range(3, ~0U, 0);
    int code = child_main_(slot.index);
    fflush(nullptr);
    _exit(code);
  }
  slot.pid = pid;
  slot.started = Now();
  if (status_ != nullptr) {
    status_->SetPhase(slot.index, obs::WorkerPhase::kConnecting);
    status_->slot(slot.index).db_ok.store(false, std::memory_order_relaxed);
  }
  obs::Info("supervisor", "worker started")
      .Int("slot", slot.index + 1)
      .Int("pid", pid)
      .Emit();
}

void Supervisor::OnChildExit(pid_t pid, int wstatus) {
  auto it = std::find_if(slots_.begin(), slots_.end(),
                         [pid](const auto& s) { return s->pid == pid; });
  if (it == slots_.end()) return;  // not one of ours (e.g. a grandchild)
  Slot& slot = **it;
  slot.pid = 0;
  double lived = Now() - slot.started;
  if (status_ != nullptr) {
    status_->SetPhase(slot.index, obs::WorkerPhase::kDown);
    status_->slot(slot.index).db_ok.store(false, std::memory_order_relaxed);
    status_->slot(slot.index).job_id.store(0, std::memory_order_relaxed);
  }
  bool clean = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
  bool expected = state_ != State::kRunning && (clean || WIFSIGNALED(wstatus));
  obs::Event event = expected ? obs::Info("supervisor", "worker exited")
                              : obs::Error("supervisor", "worker exited");
  event.Int("slot", slot.index + 1).Int("pid", pid).Num("lived_s", lived);
  if (WIFEXITED(wstatus)) {
    event.Int("exit_code", WEXITSTATUS(wstatus));
  } else if (WIFSIGNALED(wstatus)) {
    event.Str("signal", SignalName(WTERMSIG(wstatus)));
  }
  if (state_ == State::kRunning) {
    if (lived >= options_.stable_after) slot.backoff = options_.backoff_min;
    double delay = slot.backoff;
    slot.backoff = std::min(options_.backoff_max, slot.backoff * 2);
    event.Num("restart_in_s", delay);
    ev_timer_set(&slot.restart, delay, 0);
    ev_timer_start(loop_, &slot.restart);
  }
  event.Emit();
  if (state_ != State::kRunning && LiveChildren() == 0) {
    ev_break(loop_, EVBREAK_ALL);
  }
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
  obs::Info("supervisor", next == State::kDraining
                              ? "graceful shutdown: workers finish their jobs"
                              : "fast shutdown: workers exit now")
      .Str("signal", SignalName(signum))
      .Int("workers", LiveChildren())
      .Emit();
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
      obs::Info("supervisor",
                "SIGHUP ignored: configuration is read at start; restart "
                "the service to apply changes")
          .Emit();
      break;
  }
}

std::string Supervisor::StatusLine() const {
  int live = LiveChildren();
  std::string line;
  if (state_ == State::kDraining) {
    line = "draining: " + std::to_string(live) + " workers finishing";
  } else if (state_ == State::kQuitting) {
    line = "stopping: " + std::to_string(live) + " workers exiting";
  } else {
    line =
        std::to_string(live) + "/" + std::to_string(slots_.size()) + " workers";
    if (status_ != nullptr) {
      line += ": " + std::to_string(status_->Count(obs::WorkerPhase::kBusy)) +
              " busy, " +
              std::to_string(status_->Count(obs::WorkerPhase::kIdle)) + " idle";
      int connecting = status_->Count(obs::WorkerPhase::kConnecting);
      if (connecting > 0) {
        line += ", " + std::to_string(connecting) + " connecting";
      }
    }
  }
  if (status_ != nullptr) {
    line += "; " + std::to_string(status_->JobsDone()) + " jobs processed";
  }
  return line;
}

// Seconds between EXTEND_TIMEOUT_USEC messages is 1 (the tick); each
// extends by this much, so a master that stops sending them is stopped by
// the service manager soon after.
constexpr double kExtendBy = 5.0;

void Supervisor::OnTick() {
  if (metrics_ != nullptr) metrics_->SetWorkersRunning(LiveChildren());
  notifier_.Status(StatusLine());
  ExtendDrain();
}

void Supervisor::ExtendDrain() {
  if (state_ != State::kDraining) return;
  double left = options_.drain_allowance - (Now() - drain_started_);
  notifier_.ExtendTimeout(std::min(kExtendBy, left));
}

obs::HttpResponse Supervisor::Route(const std::string& path) {
  obs::HttpResponse r;
  if (path == "/metrics") {
    if (metrics_ == nullptr) return {404, r.content_type, "no metrics\n"};
    metrics_->SetWorkersRunning(LiveChildren());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = metrics_->RenderPrometheus();
    return r;
  }
  if (path == "/healthz") {
    r.body = "ok\n";
    return r;
  }
  if (path == "/readyz") {
    std::string why;
    if (state_ != State::kRunning) why += "shutting down\n";
    if (LiveChildren() == 0) why += "no worker running\n";
    if (status_ != nullptr && status_->Connected() == 0) {
      why += "no worker connected to the database\n";
    }
    if (db_probe_ && db_probe_->up() == false) {
      why += "database unreachable\n";
    }
    if (why.empty()) {
      r.body = "ready\n";
    } else {
      r.status = 503;
      r.body = why;
    }
    return r;
  }
  return {404, r.content_type, "not found\n"};
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
    const obs::ListenAddress& addr = *options_.metrics_listen;
    AWC_ASSIGN_OR_RETURN(
        http_, obs::HttpServer::Start(
                   loop_, addr.host, addr.port,
                   [this](const std::string& path) { return Route(path); }));
    if (!options_.database_url.empty()) {
      db_probe_ = std::make_unique<DbProbe>(
          loop_, DbProbe::Options{options_.database_url, options_.probe_name});
    }
  }
  for (auto& slot : slots_) Spawn(*slot);
  // After the fork: the children need not inherit its connection.
  if (db_probe_) db_probe_->Start();
  obs::Info("supervisor", "supervisor running")
      .Int("workers", options_.slots)
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
  obs::Info("supervisor", "shut down").Emit();
  return 0;
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
  if (self->metrics_ != nullptr) self->metrics_->CountRestart();
  self->Spawn(*slot);
}

void Supervisor::WatchdogCb(struct ev_loop*, ev_timer* w, int) {
  static_cast<Supervisor*>(w->data)->notifier_.Watchdog();
}

void Supervisor::TickCb(struct ev_loop*, ev_timer* w, int) {
  static_cast<Supervisor*>(w->data)->OnTick();
}

}  // namespace awc::supervisor
