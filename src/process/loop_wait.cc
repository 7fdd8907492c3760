#include "process/loop_wait.h"

#include <ev.h>

namespace awc::process {
namespace {

struct WaitFlag {
  bool fired = false;
};

void OnWaitTimer(struct ev_loop*, ev_timer* w, int) {
  static_cast<WaitFlag*>(w->data)->fired = true;
}

void OnWaitIo(struct ev_loop*, ev_io* w, int) {
  static_cast<WaitFlag*>(w->data)->fired = true;
}

}  // namespace

void WaitOnLoop(struct ev_loop* loop, double seconds, int fd,
                const StopFn* stop) {
  if (seconds <= 0) return;
  WaitFlag flag;
  ev_now_update(loop);
  ev_timer timer;
  ev_timer_init(&timer, OnWaitTimer, seconds, 0);
  timer.data = &flag;
  ev_timer_start(loop, &timer);
  ev_io io;
  if (fd >= 0) {
    ev_io_init(&io, OnWaitIo, fd, EV_READ);
    io.data = &flag;
    ev_io_start(loop, &io);
  }
  while (!flag.fired && !(stop != nullptr && (*stop)())) {
    ev_run(loop, EVRUN_ONCE);
  }
  ev_timer_stop(loop, &timer);
  if (fd >= 0) ev_io_stop(loop, &io);
}

}  // namespace awc::process
