#include "obs/process_metrics.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "obs/metrics_test_support.h"
#include "obs/scrape.h"
#include "testing/fault_env.h"

namespace awc::obs {
namespace {

using testing::HasLine;
using testing::Lines;
using testing::NewMetrics;

// The process_* families of a scrape that reads `source`.
std::string RenderProcess(const ProcSource& source) {
  ProcReading reading = ReadProcess(source);
  ScrapeInput input;
  input.proc = &reading;
  PromText out;
  RenderScraped(&out, input);
  std::string text;
  for (const std::string& l : Lines(out.text())) {
    std::string name = l.starts_with("# ") ? l.substr(7) : l;
    if (name.starts_with("process_")) text += l + "\n";
  }
  return text;
}

// The system's files, with the clocks stopped 100 s after a boot at
// 1700000000 (seconds since the epoch).
class BootedAtEnv : public FaultEnv {
 public:
  BootedAtEnv() : FaultEnv(Env::Default()) {}
  double NowWall() override { return 1700000100; }
  double NowBoot() override { return 100; }
};

// The system as the unit's ProcSubset=pid shows it: /proc/stat is absent.
class NoProcStatEnv : public FaultEnv {
 public:
  NoProcStatEnv() : FaultEnv(Env::Default()) {}
  Result<std::string> ReadFile(const std::string& path) override {
    if (path == "/proc/stat") return ErrnoStatus("cannot open", path, ENOENT);
    return FaultEnv::ReadFile(path);
  }
};

// A fake /proc/self: <dir>/self/{stat,limits,fd/}.
class ProcessMetricsTest : public ::testing::Test {
 protected:
  ProcessMetricsTest() {
    char tmpl[] = "/tmp/awc-proc-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Run("mkdir -p " + dir_ + "/self/fd");
    source_.env = &env_;
    source_.self = dir_ + "/self";
    source_.clock_ticks = 100;
    source_.page_size = 4096;
  }
  ~ProcessMetricsTest() override { Run("rm -rf " + dir_); }

  static void Run(const std::string& cmd) {
    ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
  }
  void Write(const std::string& rel, const std::string& content) {
    std::ofstream(dir_ + "/" + rel) << content;
  }
  std::string Render() { return RenderProcess(source_); }

  BootedAtEnv env_;
  std::string dir_;
  ProcSource source_;
};

// proc(5): pid (comm) state ppid ... utime(14) stime(15) ... starttime(22)
// vsize(23) rss(24). The command name holds a space and parentheses.
constexpr const char* kStat =
    "4242 (awc-worker: (x) m) S 1 4242 4242 0 -1 4194560 1000 0 0 0 "
    "250 125 0 0 20 0 1 0 500 104857600 2560 18446744073709551615 0 0 0 0 0 "
    "0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

TEST_F(ProcessMetricsTest, ReadsTheStandardMetricsFromProc) {
  Write("self/stat", kStat);
  Write("self/limits",
        "Limit                     Soft Limit           Hard Limit           "
        "Units     \n"
        "Max open files            1024                 524288               "
        "files     \n");
  for (const char* fd : {"0", "1", "2", "3"})
    Write(std::string("self/fd/") + fd, "");
  std::string text = Render();
  EXPECT_TRUE(HasLine(text, "# TYPE process_cpu_seconds_total counter"));
  EXPECT_TRUE(HasLine(text, "process_cpu_seconds_total 3.75")) << text;
  EXPECT_TRUE(HasLine(text, "# TYPE process_resident_memory_bytes gauge"));
  EXPECT_TRUE(HasLine(text, "process_resident_memory_bytes 1.048576e+07"));
  EXPECT_TRUE(HasLine(text, "process_virtual_memory_bytes 1.048576e+08"));
  EXPECT_TRUE(HasLine(text, "process_start_time_seconds 1.700000005e+09"));
  EXPECT_TRUE(HasLine(text, "process_open_fds 4"));
  EXPECT_TRUE(HasLine(text, "process_max_fds 1024"));
}

TEST_F(ProcessMetricsTest, WhatCannotBeReadIsLeftOut) {
  // No stat file, an unlimited soft limit: only the open descriptors.
  Write("self/limits",
        "Max open files            unlimited            unlimited            "
        "files     \n");
  std::string text = Render();
  EXPECT_EQ(text,
            "# HELP process_open_fds Number of open file descriptors.\n"
            "# TYPE process_open_fds gauge\n"
            "process_open_fds 0\n");
  Write("self/stat", "garbage");
  EXPECT_EQ(Render(), text);
}

TEST(ProcessMetricsRealTest, TheRealProcessHasPlausibleValues) {
  std::string text = RenderProcess({});
  for (const char* name :
       {"process_cpu_seconds_total ", "process_resident_memory_bytes ",
        "process_virtual_memory_bytes ", "process_start_time_seconds ",
        "process_open_fds ", "process_max_fds "}) {
    bool found = false;
    for (const std::string& l : Lines(text)) {
      if (l.rfind(name, 0) != 0) continue;
      found = true;
      double v = std::stod(l.substr(l.find(' ') + 1));
      EXPECT_GE(v, 0) << l;
    }
    EXPECT_TRUE(found) << name << "\n" << text;
  }
  // Started after 2020 and not in the future.
  for (const std::string& l : Lines(text)) {
    if (l.rfind("process_start_time_seconds ", 0) != 0) continue;
    double start = std::stod(l.substr(l.find(' ') + 1));
    EXPECT_GT(start, 1577836800);
    EXPECT_LE(start, static_cast<double>(time(nullptr)) + 1);
  }
}

// The value of the sample `name` in `text`, or -1.
double SampleValue(const std::string& text, const std::string& name) {
  for (const std::string& l : Lines(text)) {
    if (l.rfind(name + " ", 0) == 0) return std::stod(l.substr(name.size()));
  }
  return -1;
}

TEST(ProcessMetricsRealTest, StartTimeNeedsNoProcStat) {
  NoProcStatEnv env;
  ProcSource source;
  source.env = &env;
  std::string text = RenderProcess(source);
  double start = SampleValue(text, "process_start_time_seconds");
  ASSERT_GT(start, 0) << text;

  // What the kernel's boot time (btime, whole seconds) gives for the
  // start time of this process (field 22 of /proc/self/stat, in ticks).
  std::ifstream proc_stat("/proc/stat");
  std::string line;
  double btime = -1;
  while (std::getline(proc_stat, line)) {
    if (line.rfind("btime ", 0) == 0) btime = std::stod(line.substr(6));
  }
  if (btime < 0) GTEST_SKIP() << "/proc/stat has no btime here";
  std::stringstream self;
  self << std::ifstream("/proc/self/stat").rdbuf();
  std::string fields = self.str().substr(self.str().rfind(')') + 1);
  std::istringstream words(fields);
  std::string word;
  for (int i = 3; i <= 22; ++i) words >> word;
  double expected =
      btime + std::stod(word) / static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_NEAR(start, expected, 2.0) << text;
}

}  // namespace
}  // namespace awc::obs
