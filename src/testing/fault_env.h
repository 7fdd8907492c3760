// FaultEnv: an Env for tests that forwards to another Env and makes chosen
// calls fail, to check how callers survive I/O errors (a full disk, EIO
// from a dying device, a rename that does not happen).
//
//   FaultEnv env(Env::Default());
//   env.FailNth(FaultEnv::Op::kSync, 1, EIO);       // the next Sync fails
//   env.FailFrom(FaultEnv::Op::kAppend, 3, ENOSPC);  // the 3rd Append on
//
// An injected fault returns exactly what the base Env would for that errno
// (ErrnoStatus) and has no effect, with two exceptions: a faulted Append
// first writes half its data, as a short write on a full disk does, and a
// faulted Close still closes the file. Calls are counted per operation,
// from 0 when the FaultEnv is made and at Reset(). Clocks are never
// faulted. Thread safe; file handles it returns must not outlive it.
#ifndef AWC_TESTING_FAULT_ENV_H_
#define AWC_TESTING_FAULT_ENV_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/env.h"

namespace awc {

class FaultEnv : public Env {
 public:
  enum class Op {
    kReadFile,
    kNewSequentialFile,
    kRead,  // SequentialFile::Read
    kNewRandomAccessFile,
    kReadAt,  // RandomAccessFile::ReadAt
    kNewWritableFile,
    kAppend,  // WritableFile::Append
    kSync,    // WritableFile::Sync
    kClose,   // WritableFile::Close (the descriptor is closed all the same)
    kRenameFile,
    kRemoveFile,
    kCreateDirs,
    kSyncDir,
    kStat,
    kListDir,
  };
  static constexpr int kNumOps = static_cast<int>(Op::kListDir) + 1;

  explicit FaultEnv(Env* base);

  // The `n`th call of `op` from now on (1 = the next) fails with `err`.
  void FailNth(Op op, int n, int err);
  // That call and every later one fail with `err`.
  void FailFrom(Op op, int n, int err);
  // Stops all injection and zeroes the counts.
  void Reset();

  // How many times `op` was called (faulted or not).
  int64_t calls(Op op) const;
  // How many faults were injected in all.
  int64_t injected() const;

  double NowMonotonic() override { return base_->NowMonotonic(); }
  double NowWall() override { return base_->NowWall(); }
  double NowBoot() override { return base_->NowBoot(); }
  void SleepFor(double seconds) override { base_->SleepFor(seconds); }
  Result<std::string> ReadFile(const std::string& path) override;
  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path, Symlinks symlinks) override;
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, CreateMode mode) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status RemoveFile(const std::string& path, Symlinks symlinks) override;
  Status CreateDirs(const std::string& path) override;
  Status SyncDir(const std::string& path) override;
  Result<FileInfo> Stat(const std::string& path, Symlinks symlinks) override;
  // Never faulted.
  Result<std::string> RealPath(const std::string& path) override {
    return base_->RealPath(path);
  }
  Result<std::vector<std::string>> ListDir(const std::string& path,
                                           Symlinks symlinks) override;

  // Counts a call of `op` on `path`; returns the fault to inject, or OK.
  // For the file handles; callers need not use it.
  Status Check(Op op, const std::string& what, const std::string& path);

 private:
  struct Rule {
    int64_t fail_at = 0;  // the call number that fails; 0: none
    bool sticky = false;  // and every one after it
    int err = 0;
  };

  Env* const base_;
  mutable std::mutex mu_;
  std::array<int64_t, kNumOps> calls_{};
  std::array<Rule, kNumOps> rules_{};
  int64_t injected_ = 0;
};

}  // namespace awc

#endif  // AWC_TESTING_FAULT_ENV_H_
