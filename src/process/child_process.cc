#include "process/child_process.h"

#include <ev.h>
#include <signal.h>
#include <unistd.h>

namespace awc::process {
namespace {

volatile sig_atomic_t g_stop = 0;
struct ev_loop* g_loop = nullptr;
ev_async g_wake;

void OnStopSignal(int) {
  g_stop = 1;
  if (g_loop != nullptr) ev_async_send(g_loop, &g_wake);
}

void OnQuitSignal(int) { _exit(0); }

void OnWake(struct ev_loop*, ev_async*, int) {}

void Handle(int sig, void (*fn)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, nullptr);
}

void InstallChildSignals(struct ev_loop* loop) {
  g_loop = loop;
  ev_async_init(&g_wake, OnWake);
  ev_async_start(loop, &g_wake);
  // The watcher must not keep ev_run() alive on its own.
  ev_unref(loop);
  Handle(SIGTERM, OnStopSignal);
  Handle(SIGINT, OnStopSignal);
  Handle(SIGQUIT, OnQuitSignal);
  Handle(SIGHUP, SIG_IGN);
  Handle(SIGPIPE, SIG_IGN);
  Handle(SIGCHLD, SIG_DFL);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
}

}  // namespace

int RunChildProcess(const std::function<int(struct ev_loop* loop)>& body) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  InstallChildSignals(loop);
  int code = body(loop);
  g_loop = nullptr;
  ev_loop_destroy(loop);
  return code;
}

bool StopRequested() { return g_stop != 0; }

}  // namespace awc::process
