#include "testing/fault_env.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <iterator>
#include <string>

#include "store/store_conformance.h"

namespace awc {
namespace {

using store::storetest::ScopedTempDir;

size_t OpenDescriptors() {
  auto dir = std::filesystem::directory_iterator("/proc/self/fd");
  return static_cast<size_t>(std::distance(begin(dir), end(dir)));
}

TEST(FaultEnvTest, FailsTheChosenCallsOnly) {
  ScopedTempDir tmp;
  FaultEnv env(Env::Default());
  std::string path = tmp.path() + "/f";
  EXPECT_TRUE(env.Stat(path, Env::Symlinks::kFollow).status().IsNotFound());  // the real answer
  env.FailNth(FaultEnv::Op::kStat, 2, EIO);
  EXPECT_TRUE(env.Stat(tmp.path(), Env::Symlinks::kFollow).ok());
  EXPECT_EQ(env.Stat(tmp.path(), Env::Symlinks::kFollow).status().code(), Status::Code::kIoError);
  EXPECT_TRUE(env.Stat(tmp.path(), Env::Symlinks::kFollow).ok());
  EXPECT_EQ(env.calls(FaultEnv::Op::kStat), 4);
  EXPECT_EQ(env.injected(), 1);

  size_t fds = OpenDescriptors();
  auto out = env.NewWritableFile(path, Env::CreateMode::kExclusive);
  ASSERT_TRUE(out.ok());
  env.FailFrom(FaultEnv::Op::kAppend, 1, ENOSPC);
  Status s = (*out)->Append("abcd");
  EXPECT_NE(s.message().find("disk full"), std::string::npos);
  EXPECT_NE(s.message().find(path), std::string::npos);
  EXPECT_FALSE((*out)->Append("efgh").ok());
  env.FailNth(FaultEnv::Op::kClose, 1, EIO);
  EXPECT_FALSE((*out)->Close().ok());
  EXPECT_EQ(OpenDescriptors(), fds);       // a faulted Close still closes
  EXPECT_EQ(*env.ReadFile(path), "abef");  // half of each faulted Append

  env.Reset();
  EXPECT_EQ(env.calls(FaultEnv::Op::kAppend), 0);
  EXPECT_TRUE(env.RemoveFile(path, Env::Symlinks::kFollow).ok());
}

TEST(FaultEnvTest, RandomAccessFilesAreFaultedPerOpenAndPerRead) {
  ScopedTempDir tmp;
  FaultEnv env(Env::Default());
  std::string path = tmp.path() + "/f";
  ASSERT_TRUE(env.NewWritableFile(path, Env::CreateMode::kExclusive)
                  .value()
                  ->Append("abcdef")
                  .ok());
  env.FailNth(FaultEnv::Op::kNewRandomAccessFile, 1, EACCES);
  Status denied = env.NewRandomAccessFile(path).status();
  EXPECT_EQ(denied.message(),
            "cannot open \"" + path + "\": Permission denied");
  auto in = env.NewRandomAccessFile(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_EQ((*in)->size(), 6u);
  env.FailNth(FaultEnv::Op::kReadAt, 2, EIO);
  char buf[3];
  EXPECT_EQ(*(*in)->ReadAt(0, buf, 3), 3u);
  EXPECT_EQ((*in)->ReadAt(3, buf, 3).status().code(), Status::Code::kIoError);
  EXPECT_EQ(*(*in)->ReadAt(3, buf, 3), 3u);
  EXPECT_EQ(std::string(buf, 3), "def");
  EXPECT_EQ(env.calls(FaultEnv::Op::kReadAt), 3);
  EXPECT_EQ(env.injected(), 2);
}

}  // namespace
}  // namespace awc
