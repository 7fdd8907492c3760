#include "process/child_process.h"

#include <ev.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gtest/gtest.h"
#include "process/loop_wait.h"

namespace awc::process {
namespace {

// Forks a child whose main is RunChildProcess with a body that waits on its
// loop until a stop is requested (or 30 s pass) and then exits 7, or 3 when
// it was never asked to stop. The child tells the parent through `ready`
// once its handlers are in place.
pid_t StartChild() {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    int code = RunChildProcess([&](struct ev_loop* loop) {
      (void)!write(ready[1], "x", 1);
      StopFn stop = StopRequested;
      WaitOnLoop(loop, 30, -1, &stop);
      return StopRequested() ? 7 : 3;
    });
    _exit(code);
  }
  close(ready[1]);
  char c;
  EXPECT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  return WEXITSTATUS(status);
}

TEST(ChildProcessTest, SigtermWakesTheLoopAndTheBodyReturnsItsCode) {
  pid_t pid = StartChild();
  ASSERT_GT(pid, 0);
  kill(pid, SIGTERM);
  EXPECT_EQ(WaitExit(pid), 7);
}

TEST(ChildProcessTest, SigintIsAGracefulStopToo) {
  pid_t pid = StartChild();
  ASSERT_GT(pid, 0);
  kill(pid, SIGINT);
  EXPECT_EQ(WaitExit(pid), 7);
}

TEST(ChildProcessTest, SigquitExitsAtOnceWithoutFinishingTheBody) {
  pid_t pid = StartChild();
  ASSERT_GT(pid, 0);
  kill(pid, SIGQUIT);
  EXPECT_EQ(WaitExit(pid), 0);
}

TEST(ChildProcessTest, SighupAndSigpipeAreIgnored) {
  pid_t pid = StartChild();
  ASSERT_GT(pid, 0);
  kill(pid, SIGHUP);
  kill(pid, SIGPIPE);
  kill(pid, SIGTERM);
  EXPECT_EQ(WaitExit(pid), 7);
}

}  // namespace
}  // namespace awc::process
