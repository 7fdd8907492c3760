// Fixed-size records kept in memory up to a budget and in temporary files
// beyond it, so a closure walk's memory does not grow with the closure
// (docs/store.md, "Manifests and closures").
//
// Contract:
//  - Spool<T> is written once (Append... Finish) and then read from the
//    start by any number of readers, one after the other or at once. Its
//    records stay in memory while they take at most `memory_bytes`; past
//    that they all move to one file and later ones are appended to it in
//    64 KiB writes.
//  - Sorter<T, Less> takes records in any order and hands them back in
//    Less order (a stable order is not promised: records that compare equal
//    come back in any order). It keeps up to `memory_bytes` of records in
//    memory, sorts them and writes them as a run when that is full; Finish()
//    merges the runs, at most kMaxFanIn at a time, so a merge reads with a
//    bounded number of 64 KiB buffers however many records there are.
//  - Files are made through the Env in SpillOptions::dir (when empty,
//    $TMPDIR, else /tmp) with names awc-spill-<random>-<n>, created
//    exclusively, and removed when the object that made them is destroyed
//    (readers of a Spool keep it alive). Errors of the Env come back as
//    they are (kIoError "disk full" when the directory's file system is).
//  - T is trivially copyable; records are written as their bytes, so the
//    files are only for this process.
#ifndef AWC_CAS_SPILL_H_
#define AWC_CAS_SPILL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/env.h"
#include "common/status.h"

namespace awc::cas {

struct SpillOptions {
  Env* env = nullptr;  // nullptr: Env::Default()
  std::string dir;     // "": $TMPDIR, else /tmp
  // What a walk keeps in memory for its sets and queues, all together.
  size_t memory_bytes = 16 * 1024 * 1024;
};

// Names and removes the files of one walk.
class SpillFiles {
 public:
  explicit SpillFiles(const SpillOptions& options);

  Env* env() const { return env_; }
  // A new path that nothing uses yet (created by the caller, exclusively).
  std::string NewPath();
  // Removes `path`, ignoring errors: a scratch file left behind is only
  // disk space.
  void Remove(const std::string& path);

 private:
  Env* env_;
  std::string prefix_;
  uint64_t next_ = 0;
};

namespace spill_internal {

constexpr size_t kIoBytes = 64 * 1024;

// Reads whole records of `size` bytes from a file through a buffer.
class FileRecords {
 public:
  FileRecords(std::unique_ptr<SequentialFile> file, size_t size)
      : file_(std::move(file)), size_(size), buf_(kIoBytes / size * size) {}

  // Copies the next record to `out`; false at the end of the file.
  Result<bool> Next(void* out) {
    if (pos_ == end_) {
      end_ = 0;
      pos_ = 0;
      while (end_ < buf_.size()) {
        AWC_ASSIGN_OR_RETURN(
            size_t n, file_->Read(buf_.data() + end_, buf_.size() - end_));
        if (n == 0) break;
        end_ += n;
      }
      if (end_ % size_ != 0) {
        return Status::Corruption("spill file ends inside a record");
      }
      if (end_ == 0) return false;
    }
    std::memcpy(out, buf_.data() + pos_, size_);
    pos_ += size_;
    return true;
  }

 private:
  std::unique_ptr<SequentialFile> file_;
  size_t size_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
};

}  // namespace spill_internal

template <typename T>
class Spool {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  Spool(SpillFiles* files, size_t memory_bytes)
      : files_(files),
        max_in_memory_(std::max<size_t>(1, memory_bytes / sizeof(T))) {}
  ~Spool() {
    out_.reset();
    if (!path_.empty()) files_->Remove(path_);
  }
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  Status Append(const T& record) {
    ++count_;
    if (path_.empty()) {
      mem_.push_back(record);
      if (mem_.size() <= max_in_memory_) return Status::OK();
      path_ = files_->NewPath();
      AWC_ASSIGN_OR_RETURN(out_, files_->env()->NewWritableFile(
                                     path_, Env::CreateMode::kExclusive));
      pending_.assign(reinterpret_cast<const char*>(mem_.data()),
                      mem_.size() * sizeof(T));
      std::vector<T>().swap(mem_);
      return Flush(false);
    }
    pending_.append(reinterpret_cast<const char*>(&record), sizeof(T));
    return Flush(false);
  }

  // No more records; readers may start.
  Status Finish() {
    if (!out_) return Status::OK();
    AWC_RETURN_IF_ERROR(Flush(true));
    Status s = out_->Close();
    out_.reset();
    return s;
  }

  uint64_t size() const { return count_; }
  bool in_memory() const { return path_.empty(); }

  class Reader {
   public:
    // Copies the next record to `out`; false after the last.
    Result<bool> Next(T* out) {
      if (file_) return file_->Next(out);
      if (pos_ == spool_->mem_.size()) return false;
      *out = spool_->mem_[pos_++];
      return true;
    }

   private:
    friend class Spool;
    const Spool* spool_ = nullptr;
    size_t pos_ = 0;
    std::unique_ptr<spill_internal::FileRecords> file_;
  };

  Result<std::unique_ptr<Reader>> NewReader() const {
    auto r = std::make_unique<Reader>();
    r->spool_ = this;
    if (!path_.empty()) {
      AWC_ASSIGN_OR_RETURN(
          std::unique_ptr<SequentialFile> f,
          files_->env()->NewSequentialFile(path_, Env::Symlinks::kRefuse));
      r->file_ = std::make_unique<spill_internal::FileRecords>(std::move(f),
                                                               sizeof(T));
    }
    return r;
  }

 private:
  Status Flush(bool all) {
    if (pending_.size() < spill_internal::kIoBytes && !all) return Status::OK();
    if (pending_.empty()) return Status::OK();
    Status s = out_->Append(pending_);
    pending_.clear();
    return s;
  }

  SpillFiles* files_;
  size_t max_in_memory_;
  uint64_t count_ = 0;
  std::vector<T> mem_;
  std::string path_;
  std::unique_ptr<WritableFile> out_;
  std::string pending_;
};

template <typename T, typename Less>
class Sorter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Runs merged at once; more are merged in rounds.
  static constexpr size_t kMaxFanIn = 32;

  Sorter(SpillFiles* files, size_t memory_bytes)
      : files_(files),
        max_in_memory_(std::max<size_t>(1, memory_bytes / sizeof(T))) {}

  Status Add(const T& record) {
    ++count_;
    buf_.push_back(record);
    if (buf_.size() < max_in_memory_) return Status::OK();
    return WriteRun();
  }

  uint64_t size() const { return count_; }

  // No more records: the reader hands them back in order.
  class Reader {
   public:
    Result<bool> Next(T* out) {
      if (sorter_->merged_) return sorter_->NextMerged(out);
      if (pos_ == sorter_->buf_.size()) return false;
      *out = sorter_->buf_[pos_++];
      return true;
    }

   private:
    friend class Sorter;
    Sorter* sorter_ = nullptr;
    size_t pos_ = 0;
  };

  // Call once, after the last Add().
  Result<std::unique_ptr<Reader>> Finish() {
    if (runs_.empty()) {
      std::sort(buf_.begin(), buf_.end(), Less());
    } else {
      if (!buf_.empty()) AWC_RETURN_IF_ERROR(WriteRun());
      std::vector<T>().swap(buf_);
      while (runs_.size() > kMaxFanIn) {
        std::vector<std::unique_ptr<Spool<T>>> group;
        for (size_t i = 0; i < kMaxFanIn; ++i) {
          group.push_back(std::move(runs_.front()));
          runs_.erase(runs_.begin());
        }
        AWC_RETURN_IF_ERROR(StartMerge(std::move(group)));
        auto run = std::make_unique<Spool<T>>(files_, 0);
        T r;
        for (;;) {
          AWC_ASSIGN_OR_RETURN(bool more, NextMerged(&r));
          if (!more) break;
          AWC_RETURN_IF_ERROR(run->Append(r));
        }
        AWC_RETURN_IF_ERROR(run->Finish());
        runs_.push_back(std::move(run));
      }
      std::vector<std::unique_ptr<Spool<T>>> all = std::move(runs_);
      runs_.clear();
      AWC_RETURN_IF_ERROR(StartMerge(std::move(all)));
      merged_ = true;
    }
    auto r = std::make_unique<Reader>();
    r->sorter_ = this;
    return r;
  }

 private:
  struct Head {
    T record;
    size_t source;
  };
  struct HeadAfter {
    bool operator()(const Head& a, const Head& b) const {
      return Less()(b.record, a.record);
    }
  };

  Status WriteRun() {
    std::sort(buf_.begin(), buf_.end(), Less());
    auto run = std::make_unique<Spool<T>>(files_, 0);
    for (const T& r : buf_) AWC_RETURN_IF_ERROR(run->Append(r));
    AWC_RETURN_IF_ERROR(run->Finish());
    runs_.push_back(std::move(run));
    buf_.clear();
    return Status::OK();
  }

  // Replaces the merge in progress (if any) by one over `sources`.
  Status StartMerge(std::vector<std::unique_ptr<Spool<T>>> sources) {
    readers_.clear();
    merging_ = std::move(sources);
    heap_ = {};
    for (size_t i = 0; i < merging_.size(); ++i) {
      AWC_ASSIGN_OR_RETURN(auto reader, merging_[i]->NewReader());
      readers_.push_back(std::move(reader));
      Head h{T(), i};
      AWC_ASSIGN_OR_RETURN(bool more, readers_[i]->Next(&h.record));
      if (more) heap_.push(h);
    }
    return Status::OK();
  }

  Result<bool> NextMerged(T* out) {
    if (heap_.empty()) return false;
    Head h = heap_.top();
    heap_.pop();
    *out = h.record;
    AWC_ASSIGN_OR_RETURN(bool more, readers_[h.source]->Next(&h.record));
    if (more) heap_.push(h);
    return true;
  }

  SpillFiles* files_;
  size_t max_in_memory_;
  uint64_t count_ = 0;
  bool merged_ = false;  // Finish() found runs: the reader merges them
  std::vector<T> buf_;
  std::vector<std::unique_ptr<Spool<T>>> runs_;
  // The merge being read: its sources, their readers, their next records.
  std::vector<std::unique_ptr<Spool<T>>> merging_;
  std::vector<std::unique_ptr<typename Spool<T>::Reader>> readers_;
  std::priority_queue<Head, std::vector<Head>, HeadAfter> heap_;
};

}  // namespace awc::cas

#endif  // AWC_CAS_SPILL_H_
