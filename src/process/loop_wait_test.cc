#include "process/loop_wait.h"

#include <ev.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace awc::process {
namespace {

TEST(LoopWaitTest, ReturnsWhenTheDescriptorIsReadable) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  struct ev_loop* loop = ev_loop_new(0);
  // Would wait 30 s were the descriptor not watched.
  WaitOnLoop(loop, 30, fds[0], nullptr);
  ev_loop_destroy(loop);
  close(fds[0]);
  close(fds[1]);
}

TEST(LoopWaitTest, ReturnsAtOnceWhenTheStopHoldsAndOnTimeoutOtherwise) {
  struct ev_loop* loop = ev_loop_new(0);
  StopFn stopped = [] { return true; };
  WaitOnLoop(loop, 30, -1, &stopped);
  int checks = 0;
  StopFn counting = [&] {
    ++checks;
    return false;
  };
  WaitOnLoop(loop, 0.01, -1, &counting);
  EXPECT_GE(checks, 1);
  ev_loop_destroy(loop);
}

}  // namespace
}  // namespace awc::process
