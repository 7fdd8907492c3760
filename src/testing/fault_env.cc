#include "testing/fault_env.h"

#include <utility>

namespace awc {
namespace {

class FaultSequentialFile : public SequentialFile {
 public:
  FaultSequentialFile(FaultEnv* env, std::string path,
                      std::unique_ptr<SequentialFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}

  Result<size_t> Read(char* buf, size_t n) override {
    AWC_RETURN_IF_ERROR(env_->Check(FaultEnv::Op::kRead, "cannot read", path_));
    return base_->Read(buf, n);
  }

 private:
  FaultEnv* const env_;
  const std::string path_;
  const std::unique_ptr<SequentialFile> base_;
};

class FaultRandomAccessFile : public RandomAccessFile {
 public:
  FaultRandomAccessFile(FaultEnv* env, std::string path,
                        std::unique_ptr<RandomAccessFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}

  Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) override {
    AWC_RETURN_IF_ERROR(
        env_->Check(FaultEnv::Op::kReadAt, "cannot read", path_));
    return base_->ReadAt(offset, buf, n);
  }

  uint64_t size() const override { return base_->size(); }

 private:
  FaultEnv* const env_;
  const std::string path_;
  const std::unique_ptr<RandomAccessFile> base_;
};

class FaultWritableFile : public WritableFile {
 public:
  FaultWritableFile(FaultEnv* env, std::string path,
                    std::unique_ptr<WritableFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    Status fault = env_->Check(FaultEnv::Op::kAppend, "cannot write", path_);
    if (!fault.ok()) {
      // A short write, then the error, as on a disk that fills up.
      (void)base_->Append(data.substr(0, data.size() / 2));
      return fault;
    }
    return base_->Append(data);
  }

  Status Sync() override {
    AWC_RETURN_IF_ERROR(env_->Check(FaultEnv::Op::kSync, "cannot sync", path_));
    return base_->Sync();
  }

  Status Close() override {
    Status fault = env_->Check(FaultEnv::Op::kClose, "cannot close", path_);
    Status s = base_->Close();
    return fault.ok() ? s : fault;
  }

 private:
  FaultEnv* const env_;
  const std::string path_;
  const std::unique_ptr<WritableFile> base_;
};

}  // namespace

FaultEnv::FaultEnv(Env* base) : base_(base) {}

void FaultEnv::FailNth(Op op, int n, int err) {
  std::lock_guard<std::mutex> lock(mu_);
  int i = static_cast<int>(op);
  rules_[i] = Rule{calls_[i] + n, false, err};
}

void FaultEnv::FailFrom(Op op, int n, int err) {
  std::lock_guard<std::mutex> lock(mu_);
  int i = static_cast<int>(op);
  rules_[i] = Rule{calls_[i] + n, true, err};
}

void FaultEnv::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  calls_ = {};
  rules_ = {};
  injected_ = 0;
}

int64_t FaultEnv::calls(Op op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_[static_cast<int>(op)];
}

int64_t FaultEnv::injected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

Status FaultEnv::Check(Op op, const std::string& what,
                       const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  int i = static_cast<int>(op);
  int64_t call = ++calls_[i];
  const Rule& rule = rules_[i];
  bool fail = rule.fail_at != 0 &&
              (call == rule.fail_at || (rule.sticky && call > rule.fail_at));
  if (!fail) return Status::OK();
  ++injected_;
  return ErrnoStatus(what, path, rule.err);
}

Result<std::string> FaultEnv::ReadFile(const std::string& path) {
  AWC_RETURN_IF_ERROR(Check(Op::kReadFile, "cannot read", path));
  return base_->ReadFile(path);
}

Result<std::unique_ptr<SequentialFile>> FaultEnv::NewSequentialFile(
    const std::string& path, Symlinks symlinks) {
  AWC_RETURN_IF_ERROR(Check(Op::kNewSequentialFile, "cannot open", path));
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> base,
                       base_->NewSequentialFile(path, symlinks));
  return std::unique_ptr<SequentialFile>(
      std::make_unique<FaultSequentialFile>(this, path, std::move(base)));
}

Result<std::unique_ptr<RandomAccessFile>> FaultEnv::NewRandomAccessFile(
    const std::string& path) {
  AWC_RETURN_IF_ERROR(Check(Op::kNewRandomAccessFile, "cannot open", path));
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> base,
                       base_->NewRandomAccessFile(path));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<FaultRandomAccessFile>(this, path, std::move(base)));
}

Result<std::unique_ptr<WritableFile>> FaultEnv::NewWritableFile(
    const std::string& path, CreateMode mode) {
  AWC_RETURN_IF_ERROR(Check(Op::kNewWritableFile, "cannot create", path));
  AWC_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> base,
                       base_->NewWritableFile(path, mode));
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultWritableFile>(this, path, std::move(base)));
}

Status FaultEnv::RenameFile(const std::string& from, const std::string& to) {
  AWC_RETURN_IF_ERROR(
      Check(Op::kRenameFile, "cannot rename \"" + from + "\" to", to));
  return base_->RenameFile(from, to);
}

Status FaultEnv::RemoveFile(const std::string& path, Symlinks symlinks) {
  AWC_RETURN_IF_ERROR(Check(Op::kRemoveFile, "cannot remove", path));
  return base_->RemoveFile(path, symlinks);
}

Status FaultEnv::CreateDirs(const std::string& path) {
  AWC_RETURN_IF_ERROR(Check(Op::kCreateDirs, "cannot create directory", path));
  return base_->CreateDirs(path);
}

Status FaultEnv::SyncDir(const std::string& path) {
  AWC_RETURN_IF_ERROR(Check(Op::kSyncDir, "cannot sync directory", path));
  return base_->SyncDir(path);
}

Result<FileInfo> FaultEnv::Stat(const std::string& path, Symlinks symlinks) {
  AWC_RETURN_IF_ERROR(Check(Op::kStat, "cannot stat", path));
  return base_->Stat(path, symlinks);
}

Result<std::vector<std::string>> FaultEnv::ListDir(const std::string& path,
                                                   Symlinks symlinks) {
  AWC_RETURN_IF_ERROR(Check(Op::kListDir, "cannot open directory", path));
  return base_->ListDir(path, symlinks);
}

}  // namespace awc
