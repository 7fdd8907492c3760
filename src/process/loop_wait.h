// WaitOnLoop: the one blocking wait of the single-threaded processes (a
// worker between jobs, the scheduler between firings), on their libev loop.
#ifndef AWC_PROCESS_LOOP_WAIT_H_
#define AWC_PROCESS_LOOP_WAIT_H_

#include "process/child_process.h"

struct ev_loop;

namespace awc::process {

// Runs `loop` for up to `seconds`, returning early once `fd` (when >= 0)
// is readable or `*stop` (when not null) holds; `stop` is checked whenever
// the loop wakes (a stop signal wakes it with ev_async_send). Other
// watchers of the loop run meanwhile.
void WaitOnLoop(struct ev_loop* loop, double seconds, int fd,
                const StopFn* stop);

}  // namespace awc::process

#endif  // AWC_PROCESS_LOOP_WAIT_H_
