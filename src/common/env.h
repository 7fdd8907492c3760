// Env: the operating-system services awc-worker uses, behind an interface
// so tests can substitute clocks and inject faults (after LevelDB's Env).
//
// Contract:
//  - Env::Default() is the real system and lives for the whole process.
//  - Every file operation returns a Status (or a Result) whose message names
//    the operation and the path and ends with strerror(), e.g.
//    `cannot open "/srv/cas/x": Permission denied`. ErrnoStatus() builds
//    them, so wrappers (FaultEnv) report faults exactly as the system would.
//  - Codes: a missing path (ENOENT, or ENOTDIR: a file where the path
//    needs a directory, so nothing can be at the path) is kNotFound; a full
//    disk or exhausted quota (ENOSPC, EDQUOT) is kIoError whose message says
//    "disk full"; anything else is kIoError. EINTR and EAGAIN are retried
//    inside.
//  - Every descriptor is opened O_CLOEXEC, so none leaks into children.
//  - Only regular files are opened for reading: a directory, FIFO, device
//    or socket is kInvalidArgument `cannot open "/x": not a regular file (a
//    FIFO)`, found without blocking (the open does not wait for a FIFO's
//    writer) and without reading the thing.
//  - File handles are used by one thread at a time and must not outlive the
//    Env that made them.
#ifndef AWC_COMMON_ENV_H_
#define AWC_COMMON_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace awc {

// A file read from start to end.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;

  // Reads up to `n` bytes into `buf`; returns how many were read, fewer than
  // `n` only at end of file (0 once it is reached).
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
};

// A regular file read at any offset.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads up to `n` bytes at `offset` into `buf`; returns how many were
  // read, fewer than `n` only at end of file (0 at or past it).
  virtual Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) = 0;
  // Its size when it was opened.
  virtual uint64_t size() const = 0;
};

// A file written from start to end. The destructor closes it if Close()
// was not called, ignoring errors.
class WritableFile {
 public:
  virtual ~WritableFile() = default;

  // Writes all of `data` after what was written before.
  virtual Status Append(std::string_view data) = 0;
  // Makes what was appended durable (fsync).
  virtual Status Sync() = 0;
  // Closes the file; it reports errors that close() detects (NFS, quota).
  // No call but the destructor may follow.
  virtual Status Close() = 0;
};

struct FileInfo {
  // kSymlink only where the symbolic link itself is asked about
  // (Env::Stat with Symlinks::kRefuse or kRefuseInPath).
  enum class Type { kRegular, kDirectory, kSymlink, kOther };
  Type type = Type::kOther;
  uint64_t size = 0;
  int64_t modified = 0;  // mtime, seconds since the Unix epoch
};

class Env {
 public:
  // How NewWritableFile() treats an existing file.
  enum class CreateMode {
    kTruncate,   // replace its content
    kExclusive,  // fail (O_EXCL)
  };

  virtual ~Env() = default;

  static Env* Default();

  // Seconds on a clock that never jumps (CLOCK_MONOTONIC).
  virtual double NowMonotonic() = 0;
  // Seconds since the epoch (CLOCK_REALTIME).
  virtual double NowWall() = 0;
  // Seconds since the system booted, time suspended included
  // (CLOCK_BOOTTIME, the clock of the start times in /proc/<pid>/stat).
  virtual double NowBoot() = 0;
  // Sleeps `seconds` (restarting after signals).
  virtual void SleepFor(double seconds) = 0;

  // Reads a whole regular file (following symbolic links).
  virtual Result<std::string> ReadFile(const std::string& path) = 0;

  // Which symbolic links a call follows.
  enum class Symlinks {
    kFollow,  // every one
    // Those in the directories above the path, not one at the path itself:
    // opening it is kInvalidArgument "not a regular file (a symbolic
    // link)", Stat() describes the link (kSymlink), ListDir() is
    // kInvalidArgument "not a directory (a symbolic link)".
    kRefuse,
    // None: as kRefuse, and a symbolic link in any directory of the path
    // is kFailedPrecondition "a symbolic link in its path". Atomic where the
    // kernel resolves paths without links (openat2, Linux 5.6); elsewhere
    // each directory is looked at first. For trees whose paths must not
    // lead elsewhere (the file store, docs/store.md).
    kRefuseInPath,
  };

  // Opens the regular file `path` for reading from its start.
  virtual Result<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path, Symlinks symlinks) = 0;

  // Opens the regular file `path` (following symbolic links) for reads at
  // any offset.
  virtual Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;

  // Creates `path` for writing (mode 0666 less the umask).
  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, CreateMode mode) = 0;

  // rename(2): atomically replaces `to` if it exists.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;

  // Removes a file (a symbolic link itself, never what it points to);
  // kNotFound when it does not exist. `symlinks` is for the directories
  // above it (kRefuseInPath refuses a link among them).
  virtual Status RemoveFile(const std::string& path, Symlinks symlinks) = 0;

  // Creates `path` and any missing parents (mkdir -p). OK if it already is
  // a directory; an error if it or a parent is something else.
  virtual Status CreateDirs(const std::string& path) = 0;

  // fsync()s a directory, making renames and removals in it durable.
  virtual Status SyncDir(const std::string& path) = 0;

  // stat(2) (lstat(2) unless kFollow); kNotFound when absent.
  virtual Result<FileInfo> Stat(const std::string& path, Symlinks symlinks) = 0;

  // The absolute path of `path` with every symbolic link, "." and ".."
  // resolved (realpath(3)); kNotFound when it does not exist.
  virtual Result<std::string> RealPath(const std::string& path) = 0;

  // The names in a directory, without "." and "..", in no particular order;
  // kNotFound when it does not exist, kInvalidArgument when it is not a
  // directory.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path,
                                                   Symlinks symlinks) = 0;

  // Stat(path, kFollow)->size.
  Result<uint64_t> GetFileSize(const std::string& path);
};

// The Status for a system call that failed on `path` with `err` (an errno
// value), classified as the contract above says. `what` names the
// operation: ErrnoStatus("cannot open", "/x", ENOENT) is kNotFound
// `cannot open "/x": No such file or directory`.
Status ErrnoStatus(std::string_view what, const std::string& path, int err);

}  // namespace awc

#endif  // AWC_COMMON_ENV_H_
