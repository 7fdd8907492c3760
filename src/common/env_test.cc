#include "common/env.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/env_posix_testing.h"
#include "store/store_conformance.h"

// The file-system part of Env, which the file store is built on.
namespace awc {
namespace {

using store::storetest::ScopedTempDir;

// The descriptor this process has open on `path`, or -1.
int FdOpenOn(const std::string& path) {
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(e.path(), ec) == path) {
      return std::stoi(e.path().filename().string());
    }
  }
  return -1;
}

bool OpenedCloseOnExec(const std::string& path) {
  int fd = FdOpenOn(path);
  EXPECT_GE(fd, 0) << "no descriptor open on " << path;
  return fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0;
}

TEST(EnvTest, ErrnoStatusClassifies) {
  Status s = ErrnoStatus("cannot open", "/x/y", ENOENT);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(), "cannot open \"/x/y\": No such file or directory");
  for (int err : {ENOSPC, EDQUOT}) {
    s = ErrnoStatus("cannot write", "/x", err);
    EXPECT_EQ(s.code(), Status::Code::kIoError);
    EXPECT_NE(s.message().find("disk full"), std::string::npos);
  }
  s = ErrnoStatus("cannot read", "/x", EIO);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "cannot read \"/x\": Input/output error");
}

TEST(EnvTest, WritesAndReadsFiles) {
  Env* env = Env::Default();
  ScopedTempDir tmp;
  std::string path = tmp.path() + "/f";
  auto out = env->NewWritableFile(path, Env::CreateMode::kExclusive);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(OpenedCloseOnExec(path));
  ASSERT_TRUE((*out)->Append("hello, ").ok());
  ASSERT_TRUE((*out)->Append("world").ok());
  ASSERT_TRUE((*out)->Sync().ok());
  ASSERT_TRUE((*out)->Close().ok());
  EXPECT_FALSE(env->NewWritableFile(path, Env::CreateMode::kExclusive).ok());

  auto in = env->NewSequentialFile(path, Env::Symlinks::kFollow);
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(OpenedCloseOnExec(path));
  char buf[8];
  EXPECT_EQ(*(*in)->Read(buf, sizeof buf), 8u);
  EXPECT_EQ(std::string(buf, 8), "hello, w");
  EXPECT_EQ(*(*in)->Read(buf, sizeof buf), 4u);  // short only at the end
  EXPECT_EQ(std::string(buf, 4), "orld");
  EXPECT_EQ(*(*in)->Read(buf, sizeof buf), 0u);
  EXPECT_EQ(*env->ReadFile(path), "hello, world");
  EXPECT_EQ(*env->GetFileSize(path), 12u);

  out = env->NewWritableFile(path, Env::CreateMode::kTruncate);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Close().ok());
  EXPECT_EQ(*env->GetFileSize(path), 0u);
}

TEST(EnvTest, DirectoriesRenamesAndRemovals) {
  Env* env = Env::Default();
  ScopedTempDir tmp;
  std::string dir = tmp.path() + "/a/b/c";
  ASSERT_TRUE(env->CreateDirs(dir).ok());
  ASSERT_TRUE(env->CreateDirs(dir).ok());
  EXPECT_EQ(env->Stat(dir, Env::Symlinks::kFollow)->type,
            FileInfo::Type::kDirectory);
  ASSERT_TRUE(env->SyncDir(dir).ok());
  std::ofstream(dir + "/f") << "12345";
  EXPECT_EQ(env->Stat(dir + "/f", Env::Symlinks::kFollow)->type,
            FileInfo::Type::kRegular);
  EXPECT_EQ(env->Stat(dir + "/f", Env::Symlinks::kFollow)->size, 5u);
  EXPECT_FALSE(env->CreateDirs(dir + "/f").ok());
  EXPECT_FALSE(env->CreateDirs(dir + "/f/g").ok());

  ASSERT_TRUE(env->RenameFile(dir + "/f", dir + "/g").ok());
  ASSERT_TRUE(env->CreateDirs(dir + "/sub").ok());
  auto names = env->ListDir(dir, Env::Symlinks::kFollow);
  ASSERT_TRUE(names.ok());
  std::sort(names->begin(), names->end());
  EXPECT_EQ(*names, (std::vector<std::string>{"g", "sub"}));

  ASSERT_TRUE(env->RemoveFile(dir + "/g", Env::Symlinks::kFollow).ok());
  Status s = env->RemoveFile(dir + "/g", Env::Symlinks::kFollow);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find(dir + "/g"), std::string::npos);
  EXPECT_TRUE(
      env->Stat(dir + "/g", Env::Symlinks::kFollow).status().IsNotFound());
  EXPECT_TRUE(env->ListDir(dir + "/none", Env::Symlinks::kFollow)
                  .status()
                  .IsNotFound());
  EXPECT_TRUE(env->NewSequentialFile(dir + "/g", Env::Symlinks::kFollow)
                  .status()
                  .IsNotFound());
  EXPECT_TRUE(env->ReadFile(dir + "/g").status().IsNotFound());
  EXPECT_TRUE(env->SyncDir(dir + "/none").IsNotFound());
  EXPECT_TRUE(env->RenameFile(dir + "/g", dir + "/h").IsNotFound());
}

TEST(EnvTest, OnlyRegularFilesOpenForReading) {
  // A directory, a FIFO without a writer (whose open() would block) and a
  // device are refused at once, by name.
  Env* env = Env::Default();
  ScopedTempDir tmp;
  std::string fifo = tmp.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string path;
    const char* what;
  };
  for (const Case& c : {Case{tmp.path(), "a directory"}, Case{fifo, "a FIFO"},
                        Case{"/dev/zero", "a device"}}) {
    SCOPED_TRACE(c.path);
    auto in = env->NewSequentialFile(c.path, Env::Symlinks::kFollow);
    ASSERT_FALSE(in.ok());
    EXPECT_TRUE(in.status().IsInvalidArgument()) << in.status().ToString();
    EXPECT_EQ(
        in.status().message(),
        "cannot open \"" + c.path + "\": not a regular file (" + c.what + ")");
    EXPECT_TRUE(env->ReadFile(c.path).status().IsInvalidArgument());
  }
}

TEST(EnvTest, RandomAccessFilesReadAtAnyOffset) {
  Env* env = Env::Default();
  ScopedTempDir tmp;
  std::string path = tmp.path() + "/f";
  std::ofstream(path) << "0123456789";
  auto in = env->NewRandomAccessFile(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_TRUE(OpenedCloseOnExec(path));
  EXPECT_EQ((*in)->size(), 10u);
  char buf[8];
  EXPECT_EQ(*(*in)->ReadAt(6, buf, sizeof buf), 4u);  // short only at the end
  EXPECT_EQ(std::string(buf, 4), "6789");
  EXPECT_EQ(*(*in)->ReadAt(2, buf, 3), 3u);
  EXPECT_EQ(std::string(buf, 3), "234");
  EXPECT_EQ(*(*in)->ReadAt(10, buf, 1), 0u);
  EXPECT_EQ(*(*in)->ReadAt(99, buf, 1), 0u);

  EXPECT_TRUE(
      env->NewRandomAccessFile(tmp.path() + "/none").status().IsNotFound());
  Status dir = env->NewRandomAccessFile(tmp.path()).status();
  EXPECT_TRUE(dir.IsInvalidArgument()) << dir.ToString();
  EXPECT_EQ(dir.message(), "cannot open \"" + tmp.path() +
                               "\": not a regular file (a directory)");
}

TEST(EnvTest, SymbolicLinksAreFollowedOnlyWhenAsked) {
  Env* env = Env::Default();
  ScopedTempDir tmp;
  std::string target = tmp.path() + "/target";
  std::ofstream(target) << "data";
  std::string link = tmp.path() + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  std::string loop = tmp.path() + "/loop";
  ASSERT_EQ(symlink(loop.c_str(), loop.c_str()), 0);
  std::string to_zero = tmp.path() + "/zero";
  ASSERT_EQ(symlink("/dev/zero", to_zero.c_str()), 0);

  EXPECT_TRUE(env->NewSequentialFile(link, Env::Symlinks::kFollow).ok());
  for (const std::string& path : {link, loop, to_zero}) {
    SCOPED_TRACE(path);
    auto in = env->NewSequentialFile(path, Env::Symlinks::kRefuse);
    ASSERT_FALSE(in.ok());
    EXPECT_TRUE(in.status().IsInvalidArgument()) << in.status().ToString();
    EXPECT_EQ(in.status().message(), "cannot open \"" + path +
                                         "\": not a regular file (a symbolic "
                                         "link)");
  }
  // Followed, a link to a device is still refused.
  EXPECT_TRUE(env->NewSequentialFile(to_zero, Env::Symlinks::kFollow)
                  .status()
                  .IsInvalidArgument());
}

// kRefuseInPath: a link in any directory of the path is refused, by every
// call that takes it, and one at the path itself is what kRefuse makes of
// it; nothing is opened, listed or removed through a link.
void CheckNoSymbolicLinkAnywhereInThePath() {
  Env* env = Env::Default();
  ScopedTempDir tmp;
  const std::string real = tmp.path() + "/real";
  ASSERT_TRUE(env->CreateDirs(real + "/sub").ok());
  std::ofstream(real + "/sub/f") << "data";
  const std::string linked = tmp.path() + "/linked";
  ASSERT_EQ(symlink(real.c_str(), linked.c_str()), 0);
  const std::string through = linked + "/sub/f";
  const auto kIn = Env::Symlinks::kRefuseInPath;

  // Followed by the other modes.
  EXPECT_TRUE(env->NewSequentialFile(through, Env::Symlinks::kRefuse).ok());
  EXPECT_TRUE(env->Stat(through, Env::Symlinks::kRefuse).ok());

  auto in = env->NewSequentialFile(through, kIn);
  ASSERT_FALSE(in.ok());
  EXPECT_TRUE(in.status().IsFailedPrecondition()) << in.status().ToString();
  EXPECT_EQ(in.status().message(),
            "cannot open \"" + through + "\": a symbolic link in its path");
  Result<FileInfo> st = env->Stat(through, kIn);
  EXPECT_TRUE(st.status().IsFailedPrecondition()) << st.status().ToString();
  auto names = env->ListDir(linked + "/sub", kIn);
  EXPECT_TRUE(names.status().IsFailedPrecondition())
      << names.status().ToString();
  Status removed = env->RemoveFile(through, kIn);
  EXPECT_TRUE(removed.IsFailedPrecondition()) << removed.ToString();
  EXPECT_TRUE(env->Stat(real + "/sub/f", kIn).ok()) << "removed through a link";

  // The link itself: described, not followed; a directory link is not
  // listed.
  st = env->Stat(linked, kIn);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->type, FileInfo::Type::kSymlink);
  EXPECT_EQ(env->Stat(linked, Env::Symlinks::kRefuse)->type,
            FileInfo::Type::kSymlink);
  EXPECT_EQ(env->Stat(linked, Env::Symlinks::kFollow)->type,
            FileInfo::Type::kDirectory);
  for (auto mode : {Env::Symlinks::kRefuse, kIn}) {
    names = env->ListDir(linked, mode);
    ASSERT_FALSE(names.ok());
    EXPECT_EQ(names.status().message(),
              "cannot open directory \"" + linked +
                  "\": not a directory (a symbolic link)");
  }
  // A file where a directory is expected.
  names = env->ListDir(real + "/sub/f", kIn);
  ASSERT_FALSE(names.ok());
  EXPECT_TRUE(names.status().IsInvalidArgument());
  EXPECT_EQ(names.status().message(),
            "cannot open directory \"" + real +
                "/sub/f\": not a directory (a regular file)");

  // Nothing can be below a file: a missing path, in every mode.
  for (auto mode : {Env::Symlinks::kFollow, Env::Symlinks::kRefuse, kIn}) {
    EXPECT_TRUE(env->Stat(real + "/sub/f/x", mode).status().IsNotFound());
    EXPECT_TRUE(
        env->NewSequentialFile(real + "/sub/f/x", mode).status().IsNotFound());
    EXPECT_TRUE(env->RemoveFile(real + "/sub/f/x", mode).IsNotFound());
  }
  EXPECT_FALSE(env->CreateDirs(real + "/sub/f/x").IsNotFound());

  // Without links, all of it works.
  EXPECT_TRUE(env->NewSequentialFile(real + "/sub/f", kIn).ok());
  st = env->Stat(real + "/sub/f", kIn);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->type, FileInfo::Type::kRegular);
  EXPECT_EQ(st->size, 4u);
  EXPECT_TRUE(env->Stat(real + "/none", kIn).status().IsNotFound());
  EXPECT_EQ(*env->ListDir(real + "/sub", kIn), std::vector<std::string>{"f"});
  EXPECT_TRUE(env->RemoveFile(real + "/sub/f", kIn).ok());
  EXPECT_TRUE(env->RemoveFile(real + "/sub/f", kIn).IsNotFound());
  // RealPath resolves the links.
  EXPECT_EQ(*env->RealPath(linked + "/sub/../sub"),
            *env->RealPath(real) + "/sub");
  EXPECT_TRUE(env->RealPath(real + "/none").status().IsNotFound());
  // Removing a link removes the link.
  EXPECT_TRUE(env->RemoveFile(linked, kIn).ok());
  EXPECT_EQ(env->Stat(real, kIn)->type, FileInfo::Type::kDirectory);
}

// With openat2(), and as on a kernel without it.
TEST(EnvTest, NoSymbolicLinkAnywhereInThePathWhenAsked) {
  for (bool openat2 : {true, false}) {
    SCOPED_TRACE(openat2 ? "openat2" : "each directory checked");
    AllowOpenat2ForTest(openat2);
    CheckNoSymbolicLinkAnywhereInThePath();
  }
  AllowOpenat2ForTest(true);
}

}  // namespace
}  // namespace awc
