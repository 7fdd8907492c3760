#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/env.h"
#include "common/env_posix_testing.h"

namespace awc {
namespace {

double ClockSeconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

bool Retryable(int err) { return err == EINTR || err == EAGAIN; }

// Opens with O_CLOEXEC, retrying on EINTR.
int OpenFd(const std::string& path, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Opens `path` resolving no symbolic link on the way (kRefuseInPath): a
// link in a directory of the path, or at the path itself unless `flags`
// has O_PATH | O_NOFOLLOW, fails with ELOOP. openat2() resolves the path
// atomically; a kernel without it (ENOSYS, or EPERM from a seccomp filter
// that does not know it) gets each directory checked with lstat() first,
// then the path opened with O_NOFOLLOW.
std::atomic<bool> openat2_allowed{true};

int OpenNoSymlinks(const std::string& path, int flags) {
#ifdef SYS_openat2
  struct open_how how = {};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_NO_SYMLINKS;
  while (openat2_allowed.load(std::memory_order_relaxed)) {
    long fd = syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == EINTR || errno == EAGAIN) continue;
    if (errno != ENOSYS && errno != EPERM) return -1;
    break;
  }
#endif
  for (size_t end = path.find('/', 1); end != std::string::npos;
       end = path.find('/', end + 1)) {
    struct stat st;
    if (lstat(path.substr(0, end).c_str(), &st) != 0) return -1;
    if (S_ISLNK(st.st_mode)) {
      errno = ELOOP;
      return -1;
    }
  }
  return OpenFd(path, flags | O_NOFOLLOW);
}

// Opens `path` with `flags` as `symlinks` says.
int OpenAs(const std::string& path, int flags, Env::Symlinks symlinks) {
  switch (symlinks) {
    case Env::Symlinks::kFollow:
      return OpenFd(path, flags);
    case Env::Symlinks::kRefuse:
      return OpenFd(path, flags | O_NOFOLLOW);
    case Env::Symlinks::kRefuseInPath:
      return OpenNoSymlinks(path, flags | O_NOFOLLOW);
  }
  return OpenFd(path, flags);
}

// The error of a path whose directories hold a symbolic link.
Status LinkInPath(std::string_view what, const std::string& path) {
  return Status::FailedPrecondition(std::string(what) + " \"" + path +
                                    "\": a symbolic link in its path");
}

// What a file that is not a regular file is, for messages.
const char* Kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "of an unknown type";
}

Status NotRegular(const std::string& path, const char* kind) {
  return Status::InvalidArgument("cannot open \"" + path +
                                 "\": not a regular file (" + kind + ")");
}

// Reads until `n` bytes or end of file.
Result<size_t> ReadFully(int fd, const std::string& path, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && Retryable(errno)) continue;
    if (r < 0) return ErrnoStatus("cannot read", path, errno);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

class PosixSequentialFile : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { close(fd_); }

  Result<size_t> Read(char* buf, size_t n) override {
    return ReadFully(fd_, path_, buf, n);
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixRandomAccessFile() override { close(fd_); }

  Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) override {
    size_t got = 0;
    while (got < n) {
      ssize_t r =
          pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && Retryable(errno)) continue;
      if (r < 0) return ErrnoStatus("cannot read", path_, errno);
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    return got;
  }

  uint64_t size() const override { return size_; }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) close(fd_);
  }

  Status Append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t w = write(fd_, data.data(), data.size());
      if (w < 0 && Retryable(errno)) continue;
      if (w < 0) return ErrnoStatus("cannot write", path_, errno);
      data.remove_prefix(static_cast<size_t>(w));
    }
    return Status::OK();
  }

  Status Sync() override {
    if (fsync(fd_) != 0) return ErrnoStatus("cannot sync", path_, errno);
    return Status::OK();
  }

  Status Close() override {
    int fd = fd_;
    fd_ = -1;
    // close() is not retried on EINTR: Linux frees the descriptor anyway.
    if (close(fd) != 0 && errno != EINTR) {
      return ErrnoStatus("cannot close", path_, errno);
    }
    return Status::OK();
  }

 private:
  const std::string path_;
  int fd_;
};

class PosixEnv : public Env {
 public:
  double NowMonotonic() override { return ClockSeconds(CLOCK_MONOTONIC); }
  double NowWall() override { return ClockSeconds(CLOCK_REALTIME); }
  double NowBoot() override { return ClockSeconds(CLOCK_BOOTTIME); }

  void SleepFor(double seconds) override {
    if (seconds <= 0) return;
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(seconds);
    ts.tv_nsec =
        static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }

  Result<std::string> ReadFile(const std::string& path) override {
    AWC_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file,
                         NewSequentialFile(path, Symlinks::kFollow));
    std::string out;
    char buf[65536];
    for (;;) {
      AWC_ASSIGN_OR_RETURN(size_t n, file->Read(buf, sizeof buf));
      out.append(buf, n);
      if (n < sizeof buf) break;
    }
    return out;
  }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path, Symlinks symlinks) override {
    struct stat st;
    AWC_ASSIGN_OR_RETURN(int fd, OpenRegular(path, symlinks, &st));
    return std::unique_ptr<SequentialFile>(
        std::make_unique<PosixSequentialFile>(path, fd));
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    struct stat st;
    AWC_ASSIGN_OR_RETURN(int fd, OpenRegular(path, Symlinks::kFollow, &st));
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<PosixRandomAccessFile>(
            path, fd, static_cast<uint64_t>(st.st_size)));
  }

  // Opens a regular file for reading, as the contract of Env says: the
  // descriptor, with `*st` its fstat().
  static Result<int> OpenRegular(const std::string& path, Symlinks symlinks,
                                 struct stat* st) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it has no
    // effect on the regular files that are read).
    int fd = OpenAs(path, O_RDONLY | O_NONBLOCK, symlinks);
    if (fd < 0) {
      int err = errno;
      struct stat link;
      // ELOOP: a link refused by O_NOFOLLOW (or, kRefuseInPath, one in a
      // directory of the path); ENXIO: a socket.
      if ((err == ELOOP || err == ENXIO) && lstat(path.c_str(), &link) == 0 &&
          (S_ISLNK(link.st_mode) || S_ISSOCK(link.st_mode))) {
        return NotRegular(path, Kind(link.st_mode));
      }
      if (err == ELOOP && symlinks == Symlinks::kRefuseInPath) {
        return LinkInPath("cannot open", path);
      }
      return ErrnoStatus("cannot open", path, err);
    }
    if (fstat(fd, st) != 0) {
      Status s = ErrnoStatus("cannot stat", path, errno);
      close(fd);
      return s;
    }
    if (!S_ISREG(st->st_mode)) {
      close(fd);
      return NotRegular(path, Kind(st->st_mode));
    }
    return fd;
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, CreateMode mode) override {
    int flags = O_WRONLY | O_CREAT |
                (mode == CreateMode::kExclusive ? O_EXCL : O_TRUNC);
    int fd = OpenFd(path, flags, 0666);
    if (fd < 0) return ErrnoStatus("cannot create", path, errno);
    return std::unique_ptr<WritableFile>(
        std::make_unique<PosixWritableFile>(path, fd));
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) {
      return ErrnoStatus("cannot rename \"" + from + "\" to", to, errno);
    }
    return Status::OK();
  }

  Status RemoveFile(const std::string& path, Symlinks symlinks) override {
    if (symlinks != Symlinks::kRefuseInPath) {
      if (unlink(path.c_str()) != 0) {
        return ErrnoStatus("cannot remove", path, errno);
      }
      return Status::OK();
    }
    // The directory opened without links, the name removed in it.
    size_t slash = path.rfind('/');
    std::string dir = slash == 0 ? "/" : path.substr(0, slash);
    int fd = OpenNoSymlinks(dir, O_PATH | O_DIRECTORY);
    if (fd < 0) {
      int err = errno;
      if (err == ELOOP) return LinkInPath("cannot remove", path);
      return ErrnoStatus("cannot remove", path, err);
    }
    Status s;
    if (unlinkat(fd, path.c_str() + slash + 1, 0) != 0) {
      s = ErrnoStatus("cannot remove", path, errno);
    }
    close(fd);
    return s;
  }

  Status CreateDirs(const std::string& path) override {
    if (path.empty()) return Status::InvalidArgument("cannot create \"\"");
    // Every prefix ending before a '/', then the whole path.
    for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
      std::string dir = path.substr(0, end);
      if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
        return NotADirectory(dir, errno);
      }
      if (end == std::string::npos) break;
    }
    AWC_ASSIGN_OR_RETURN(FileInfo info, Stat(path, Symlinks::kFollow));
    if (info.type != FileInfo::Type::kDirectory) {
      return NotADirectory(path, ENOTDIR);
    }
    return Status::OK();
  }

  // CreateDirs()'s error: a file where a directory is to be is an I/O
  // error there, not a missing path.
  static Status NotADirectory(const std::string& dir, int err) {
    if (err != ENOTDIR) return ErrnoStatus("cannot create directory", dir, err);
    return Status::IoError("cannot create directory \"" + dir +
                           "\": " + strerror(err));
  }

  Status SyncDir(const std::string& path) override {
    int fd = OpenFd(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return ErrnoStatus("cannot open directory", path, errno);
    Status s;
    if (fsync(fd) != 0) s = ErrnoStatus("cannot sync directory", path, errno);
    close(fd);
    return s;
  }

  Result<FileInfo> Stat(const std::string& path, Symlinks symlinks) override {
    struct stat st;
    int r = -1;
    switch (symlinks) {
      case Symlinks::kFollow:
        r = stat(path.c_str(), &st);
        break;
      case Symlinks::kRefuse:
        r = lstat(path.c_str(), &st);
        break;
      case Symlinks::kRefuseInPath: {
        // O_PATH | O_NOFOLLOW: a link at the path itself is opened as
        // the link.
        int fd = OpenNoSymlinks(path, O_PATH | O_NOFOLLOW);
        if (fd < 0 && errno == ELOOP) return LinkInPath("cannot stat", path);
        r = fd < 0 ? -1 : fstat(fd, &st);
        if (fd >= 0) {
          int err = errno;
          close(fd);
          errno = err;
        }
        break;
      }
    }
    if (r != 0) return ErrnoStatus("cannot stat", path, errno);
    FileInfo info;
    if (S_ISREG(st.st_mode)) {
      info.type = FileInfo::Type::kRegular;
    } else if (S_ISDIR(st.st_mode)) {
      info.type = FileInfo::Type::kDirectory;
    } else if (S_ISLNK(st.st_mode)) {
      info.type = FileInfo::Type::kSymlink;
    }
    info.size = static_cast<uint64_t>(st.st_size);
    info.modified = static_cast<int64_t>(st.st_mtime);
    return info;
  }

  Result<std::string> RealPath(const std::string& path) override {
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved == nullptr) return ErrnoStatus("cannot resolve", path, errno);
    std::string out(resolved);
    free(resolved);
    return out;
  }

  Result<std::vector<std::string>> ListDir(const std::string& path,
                                           Symlinks symlinks) override {
    int fd = OpenAs(path, O_RDONLY | O_DIRECTORY, symlinks);
    if (fd < 0) {
      int err = errno;
      struct stat st;
      if ((err == ENOTDIR || err == ELOOP) && lstat(path.c_str(), &st) == 0 &&
          !S_ISDIR(st.st_mode)) {
        return Status::InvalidArgument("cannot open directory \"" + path +
                                       "\": not a directory (" +
                                       Kind(st.st_mode) + ")");
      }
      if (err == ELOOP && symlinks == Symlinks::kRefuseInPath) {
        return LinkInPath("cannot open directory", path);
      }
      return ErrnoStatus("cannot open directory", path, err);
    }
    DIR* dir = fdopendir(fd);
    if (dir == nullptr) {
      Status s = ErrnoStatus("cannot open directory", path, errno);
      close(fd);
      return s;
    }
    std::vector<std::string> names;
    Status s;
    for (;;) {
      errno = 0;
      struct dirent* e = readdir(dir);
      if (e == nullptr) {
        if (errno != 0) s = ErrnoStatus("cannot read directory", path, errno);
        break;
      }
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      names.emplace_back(e->d_name);
    }
    closedir(dir);
    if (!s.ok()) return s;
    return names;
  }
};

}  // namespace

Result<uint64_t> Env::GetFileSize(const std::string& path) {
  AWC_ASSIGN_OR_RETURN(FileInfo info, Stat(path, Symlinks::kFollow));
  return info.size;
}

Status ErrnoStatus(std::string_view what, const std::string& path, int err) {
  std::string msg = std::string(what) + " \"" + path + "\": " + strerror(err);
  if (err == ENOENT || err == ENOTDIR) return Status::NotFound(std::move(msg));
  if (err == ENOSPC || err == EDQUOT) msg += " (disk full)";
  return Status::IoError(std::move(msg));
}

void AllowOpenat2ForTest(bool allowed) { openat2_allowed.store(allowed); }

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();
  return env;
}

}  // namespace awc
