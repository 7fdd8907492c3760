#include "tests/support/server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tests/support/harness.h"

namespace awc::testing {

bool AcceptsConnections(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

pid_t StartServer(std::vector<std::string> args, const std::string& log_path,
                  int port, double timeout_s, std::string* why) {
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    *why = std::string("fork: ") + strerror(errno);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int out = log_path.empty()
                  ? open("/dev/null", O_WRONLY)
                  : open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    int in = open("/dev/null", O_RDONLY);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    if (in >= 0) dup2(in, 0);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  bool exited = false;
  bool up = WaitUntil(
      [&] {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
          exited = true;
          return true;
        }
        return AcceptsConnections(port);
      },
      timeout_s);
  if (up && !exited) return pid;
  *why = exited ? "it exited" : "it did not accept connections in time";
  if (!exited) KillServer(pid);
  return -1;
}

void KillServer(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}

std::string FileTail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  if (text.size() > max_bytes) {
    text = "...\n" + text.substr(text.size() - max_bytes);
  }
  return text;
}

}  // namespace awc::testing
