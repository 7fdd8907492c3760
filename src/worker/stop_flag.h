// The worker process's stop flags, set from signal handlers.
//
// Signal handlers only set these flags and wake the event loop (ev_async_send
// is async-signal-safe); the worker loop reads them between steps. The one
// exception is SIGQUIT, the fast path: its handler calls _exit() at once,
// leaving the lease of any job in flight to expire (as PostgreSQL's
// quickdie does).
#ifndef AWC_WORKER_STOP_FLAG_H_
#define AWC_WORKER_STOP_FLAG_H_

struct ev_loop;

namespace awc::worker {

// Installs the worker's handlers for SIGTERM, SIGINT (graceful stop) and
// SIGQUIT (immediate exit), ignores SIGHUP and SIGPIPE, restores SIGCHLD's
// default, and unblocks all signals. `loop` is woken on SIGTERM/SIGINT.
void InstallWorkerSignals(struct ev_loop* loop);

// True once SIGTERM or SIGINT arrived (or RequestStop was called).
bool StopRequested();
void RequestStop();

}  // namespace awc::worker

#endif  // AWC_WORKER_STOP_FLAG_H_
