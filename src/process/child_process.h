// The shape every child of the master shares: the worker processes and the
// scheduler process (docs/ARCHITECTURE.md, "Process tree").
//
// Signal handlers only set a flag and wake the event loop (ev_async_send is
// async-signal-safe); the process's main loop reads the flag between steps.
// The one exception is SIGQUIT, the fast path: its handler calls _exit() at
// once, leaving the lease of any job or firing in flight to expire (as
// PostgreSQL's quickdie does).
#ifndef AWC_PROCESS_CHILD_PROCESS_H_
#define AWC_PROCESS_CHILD_PROCESS_H_

#include <functional>

struct ev_loop;

namespace awc::process {

// Whether the process has been asked to stop.
using StopFn = std::function<bool()>;

// Runs `body` as a child process's main: on a libev loop of its own, with
// SIGTERM and SIGINT (graceful stop: StopRequested() turns true and the
// loop wakes) and SIGQUIT (immediate exit) handled, SIGHUP and SIGPIPE
// ignored, SIGCHLD at its default and every signal unblocked. Returns
// body's exit code; the loop is destroyed after it.
int RunChildProcess(const std::function<int(struct ev_loop* loop)>& body);

// True once SIGTERM or SIGINT arrived.
bool StopRequested();

}  // namespace awc::process

#endif  // AWC_PROCESS_CHILD_PROCESS_H_
