#include "store/file_store.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "digest/ids.h"
#include "digest/sha256.h"

namespace awc::store {
namespace {

constexpr size_t kGetChunk = 64 * 1024;
constexpr size_t kPutChunk = 256 * 1024;
constexpr std::string_view kTempPrefix = ".tmp-";
// Below the root (made free of links when the store is opened), no
// symbolic link is followed: a key never leads out of its tenant.
constexpr Env::Symlinks kNoLinks = Env::Symlinks::kRefuseInPath;

bool IsHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Unique in its directory: the pid tells processes apart, the counter the
// calls within one, the random part hosts sharing a network file system.
std::string TempName() {
  static std::atomic<uint64_t> counter{0};
  char random[17];
  snprintf(random, sizeof random, "%08x%08x", arc4random(), arc4random());
  return std::string(kTempPrefix) + std::to_string(getpid()) + "-" +
         std::to_string(counter.fetch_add(1)) + "-" + random;
}

Status NotFound(const ObjectKey& key) {
  return Status::NotFound("object " + key.digest + " not found");
}

// Removes a temporary file unless it was renamed into place.
class TempFile {
 public:
  TempFile(Env* env, std::string path) : env_(env), path_(std::move(path)) {}
  ~TempFile() {
    if (!committed_) (void)env_->RemoveFile(path_, Env::Symlinks::kRefuse);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  void Commit() { committed_ = true; }

 private:
  Env* const env_;
  const std::string path_;
  bool committed_ = false;
};

class FileStore : public ObjectStore {
 public:
  FileStore(std::string root, Env* env) : root_(std::move(root)), env_(env) {}

  const char* scheme() const override { return "file"; }

  Status Get(const ObjectKey& key, const ChunkSink& sink) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    // The store writes regular files only: anything else at the key (a
    // directory, a FIFO, a link to a device) is corrupt data, refused
    // without blocking on it or reading it.
    auto file = env_->NewSequentialFile(PathOf(key), kNoLinks);
    if (!file.ok()) return KeyError(file.status(), key);
    // Not zeroed: most objects are far smaller than a chunk, and a walk
    // reads millions of them.
    std::unique_ptr<char[]> buf =
        std::make_unique_for_overwrite<char[]>(kGetChunk);
    for (;;) {
      Result<size_t> n = (*file)->Read(buf.get(), kGetChunk);
      if (!n.ok()) return n.status().WithContext(key.digest);
      if (*n == 0) break;
      AWC_RETURN_IF_ERROR(sink(std::string_view(buf.get(), *n)));
      if (*n < kGetChunk) break;
    }
    return Status::OK();
  }

  Result<uint64_t> Head(const ObjectKey& key) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    std::string path = PathOf(key);
    Result<FileInfo> info = env_->Stat(path, kNoLinks);
    if (!info.ok()) return KeyError(info.status(), key);
    if (info->type != FileInfo::Type::kRegular) {
      return Status::Corruption("object " + key.digest + ": \"" + path +
                                "\" is not a regular file (" +
                                TypeName(info->type) + ")");
    }
    return info->size;
  }

  Status Put(const ObjectKey& key, std::string_view data) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    return Write(key, [&](WritableFile* out) { return out->Append(data); });
  }

  Status PutFile(const ObjectKey& key, const std::string& path) override {
    AWC_RETURN_IF_ERROR(Validate(key));
    auto in = env_->NewSequentialFile(path, Env::Symlinks::kFollow);
    if (!in.ok()) {
      // A missing source is the caller's error, not a missing object.
      return Status::IoError("cannot store object " + key.digest + ": " +
                             in.status().message());
    }
    bool changed = false;
    Status s = Write(key, [&](WritableFile* out) -> Status {
      std::vector<char> buf(kPutChunk);
      digest::Sha256 hash;
      for (;;) {
        AWC_ASSIGN_OR_RETURN(size_t n, (*in)->Read(buf.data(), buf.size()));
        if (n > 0) {
          hash.Update(buf.data(), n);
          AWC_RETURN_IF_ERROR(out->Append(std::string_view(buf.data(), n)));
        }
        if (n < buf.size()) break;
      }
      // Checked before the rename: a mismatch leaves nothing behind.
      changed = "sha256:" + hash.FinishHex() != key.digest;
      return changed ? Status::Corruption("changed") : Status::OK();
    });
    return changed ? ContentChanged(key, path) : s;
  }

  Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) override {
    // Removals are made durable (one fsync per directory touched) before
    // this returns: GC removes an object's inventory row right after, and
    // an unlink lost in a crash would leave an object no one knows about.
    std::vector<Status> out;
    out.reserve(keys.size());
    std::set<std::string> dirs;
    for (const ObjectKey& key : keys) {
      Status s = Validate(key);
      if (s.ok()) {
        std::string path = PathOf(key);
        s = env_->RemoveFile(path, kNoLinks);
        if (s.ok()) dirs.insert(path.substr(0, path.rfind('/')));
        if (!s.ok()) s = KeyError(s, key);
        if (s.IsNotFound()) s = Status::OK();
      }
      out.push_back(std::move(s));
    }
    for (const std::string& dir : dirs) {
      Status synced = env_->SyncDir(dir);
      // The directory went away after the removal (its volume unmounted):
      // whether the removal lasts is not known, and nothing here is
      // missing, so the call is to be tried again.
      if (synced.IsNotFound()) {
        return Status::Transient(synced.message() +
                                 " (the directory went away after a removal)");
      }
      if (!synced.ok()) return synced;
    }
    return out;
  }

  // Lists without following a symbolic link or entering anything that is
  // not a plain directory: a tenant's directory, its "sha256" directory or
  // a fan-out directory that is a link, a file or a special file is one
  // other key, never listed into, so that no key of another tenant (or of
  // anything outside the store) is listed as this tenant's; a link, a
  // directory or a special file where an object is expected is another
  // key too (docs/store.md, "The file store's layout").
  Status List(const std::string& tenant_id, const std::string& after,
              const ListFn& each) override {
    if (!digest::IsValidTenantId(tenant_id)) {
      return Status::InvalidArgument("malformed tenant id");
    }
    std::string after_hex;
    if (!after.empty()) {
      AWC_ASSIGN_OR_RETURN(ObjectKey from, MakeKey(tenant_id, after));
      after_hex = from.digest.substr(7);
    }
    const bool from_start = after.empty();
    std::string tenant_dir = root_ + "/" + tenant_id;
    AWC_ASSIGN_OR_RETURN(bool tenant_ok,
                         PlainDirectory(tenant_dir, ".", from_start, each));
    if (!tenant_ok) return Status::OK();
    if (from_start) {
      // Whatever else lies in the tenant's directory, once.
      AWC_ASSIGN_OR_RETURN(std::vector<std::string> top,
                           SortedNames(tenant_dir));
      for (const std::string& name : top) {
        if (name == "sha256") continue;
        AWC_RETURN_IF_ERROR(ListOther(tenant_dir, name, each));
      }
    }
    std::string base = tenant_dir + "/sha256";
    AWC_ASSIGN_OR_RETURN(bool base_ok,
                         PlainDirectory(base, "sha256", from_start, each));
    if (!base_ok) return Status::OK();
    AWC_ASSIGN_OR_RETURN(std::vector<std::string> fanouts, SortedNames(base));
    for (const std::string& fanout : fanouts) {
      if (fanout.size() != 2 || !IsHex(fanout)) {
        if (from_start) {
          AWC_RETURN_IF_ERROR(ListOther(base, fanout, each, "sha256/"));
        }
        continue;
      }
      std::string_view after_fanout = std::string_view(after_hex).substr(0, 2);
      if (!from_start && fanout < after_fanout) continue;
      std::string dir = base + "/" + fanout;
      // A resumed listing reported a fan-out it stopped in already.
      bool report = from_start || fanout > after_fanout;
      AWC_ASSIGN_OR_RETURN(
          bool fanout_ok,
          PlainDirectory(dir, "sha256/" + fanout, report, each));
      if (!fanout_ok) continue;
      AWC_ASSIGN_OR_RETURN(std::vector<std::string> names, SortedNames(dir));
      for (const std::string& name : names) {
        if (!after_hex.empty() && name <= after_hex) continue;
        bool object =
            name.size() == 64 && IsHex(name) && name.starts_with(fanout);
        // Not followed: a link at an object's key is not an object, even
        // when it leads to one.
        auto info = env_->Stat(dir + "/" + name, Env::Symlinks::kRefuse);
        if (!info.ok()) {
          if (info.status().IsNotFound()) continue;  // deleted meanwhile
          return info.status();
        }
        ListedKey k;
        k.name = "sha256/" + fanout + "/" + name;
        k.size = info->size;
        k.modified = info->modified;
        if (object && info->type == FileInfo::Type::kRegular) {
          k.digest = "sha256:" + name;
        }
        AWC_RETURN_IF_ERROR(each(k));
      }
    }
    return Status::OK();
  }

  Result<std::string> ReadMarker() override {
    std::string path = MarkerPath();
    auto file = env_->NewSequentialFile(path, Env::Symlinks::kRefuse);
    if (!file.ok()) return file.status();
    std::string out(kMaxMarkerBytes + 1, '\0');
    AWC_ASSIGN_OR_RETURN(size_t n, (*file)->Read(out.data(), out.size()));
    if (n > kMaxMarkerBytes) {
      return Status::FailedPrecondition("\"" + path + "\" is larger than " +
                                        std::to_string(kMaxMarkerBytes) +
                                        " bytes");
    }
    out.resize(n);
    return out;
  }

  Status WriteMarker(std::string_view content) override {
    std::string dir = root_.empty() ? "/" : root_;
    Status s = WriteVia(MarkerPath(), dir, [&](WritableFile* out) {
      return out->Append(content);
    });
    return s.WithContext("cannot write the store marker");
  }

  // Checks that the root is a directory a file can be made in. It is not
  // created: a store is created only by `awcctl store init`
  // (InitializeStore, open_store.h), so that a typo or a missing mount is
  // an error, not a new empty store.
  Status Init() {
    std::string root = root_.empty() ? "/" : root_;
    Result<FileInfo> info = env_->Stat(root, Env::Symlinks::kFollow);
    if (!info.ok() && info.status().IsNotFound()) {
      return Status::NotFound("file store root \"" + root +
                              "\" does not exist");
    }
    if (!info.ok()) return info.status().WithContext("file store root");
    if (info->type != FileInfo::Type::kDirectory) {
      return Status::InvalidArgument("file store root \"" + root +
                                     "\" is not a directory");
    }
    TempFile probe(env_, root_ + "/" + TempName());
    auto file =
        env_->NewWritableFile(probe.path(), Env::CreateMode::kExclusive);
    Status s = file.ok() ? (*file)->Close() : file.status();
    return s.WithContext("file store root \"" + root + "\" is not writable");
  }

 private:
  // The names in `dir`, a directory reached without links, sorted (byte
  // order); none when it does not exist (removed meanwhile).
  Result<std::vector<std::string>> SortedNames(const std::string& dir) {
    auto names = env_->ListDir(dir, kNoLinks);
    if (!names.ok()) {
      if (names.status().IsNotFound()) return std::vector<std::string>();
      return names.status();
    }
    std::sort(names->begin(), names->end());
    return std::move(*names);
  }

  // Whether `path`, a directory of the layout, is a plain directory that a
  // listing may enter. Anything else there (a link, a file, a special
  // file) is reported as the other key `name` when `report`; nothing there
  // at all is neither.
  Result<bool> PlainDirectory(const std::string& path, const std::string& name,
                              bool report, const ListFn& each) {
    Result<FileInfo> info = env_->Stat(path, kNoLinks);
    if (!info.ok()) {
      if (info.status().IsNotFound()) return false;
      return info.status();
    }
    if (info->type == FileInfo::Type::kDirectory) return true;
    if (report) AWC_RETURN_IF_ERROR(each(OtherKey(name, *info)));
    return false;
  }

  // Reports `name` in `dir`, which is not an object, as `prefix` + name.
  Status ListOther(const std::string& dir, const std::string& name,
                   const ListFn& each, const std::string& prefix = "") {
    auto info = env_->Stat(dir + "/" + name, Env::Symlinks::kRefuse);
    if (!info.ok()) {
      return info.status().IsNotFound() ? Status::OK() : info.status();
    }
    return each(OtherKey(prefix + name, *info));
  }

  static ListedKey OtherKey(std::string name, const FileInfo& info) {
    ListedKey k;
    k.name = std::move(name);
    k.size = info.size;
    k.modified = info.modified;
    return k;
  }

  // What an Env error on the path of `key` means for the object, as the
  // contract of ObjectStore classifies it: nothing there, or a file where
  // a directory of the path should be, is kNotFound; something at the key
  // that is not a regular file (a link, a directory, a special file) is
  // kCorruption; a link in the directories of the path is
  // kFailedPrecondition, an error of the store's layout that an operator
  // must mend (docs/store.md, "The file store's layout"), never a verdict
  // on the object.
  static Status KeyError(const Status& s, const ObjectKey& key) {
    if (s.IsNotFound()) return NotFound(key);
    if (s.IsInvalidArgument()) {
      return Status::Corruption("object " + key.digest + ": " + s.message());
    }
    return s.WithContext(key.digest);
  }

  static const char* TypeName(FileInfo::Type type) {
    switch (type) {
      case FileInfo::Type::kRegular:
        return "a regular file";
      case FileInfo::Type::kDirectory:
        return "a directory";
      case FileInfo::Type::kSymlink:
        return "a symbolic link";
      case FileInfo::Type::kOther:
        break;
    }
    return "a special file";
  }

  // Keys are plain structs; one not made by MakeKey() must not become a path.
  static Status Validate(const ObjectKey& key) {
    return MakeKey(key.tenant_id, key.digest).status();
  }

  std::string PathOf(const ObjectKey& key) const {
    return root_ + "/" + RelativeKey(key);
  }
  std::string MarkerPath() const {
    return root_ + "/" + std::string(kMarkerName);
  }

  // Writes the object through a temporary file in its directory: fill, fsync,
  // close, rename into place, fsync the directory. On failure the temporary
  // file is removed and whatever was at the key before is untouched.
  template <typename Fill>
  Status Write(const ObjectKey& key, Fill fill) {
    std::string path = PathOf(key);
    std::string dir = path.substr(0, path.rfind('/'));
    Status s = WriteVia(path, dir, fill);
    return s.WithContext("cannot store object " + key.digest);
  }

  // Writes through a temporary file in `dir`: fill, fsync, close, rename
  // into place, fsync the directory. Whatever is at `path` is replaced (a
  // link or a special file there is replaced itself, never what it leads
  // to), but for a directory: kFailedPrecondition, and nothing is written.
  template <typename Fill>
  Status WriteVia(const std::string& path, const std::string& dir, Fill fill) {
    AWC_RETURN_IF_ERROR(EnsureDir(dir));
    Result<FileInfo> there = env_->Stat(path, kNoLinks);
    if (there.ok() && there->type == FileInfo::Type::kDirectory) {
      return Status::FailedPrecondition(
          "\"" + path + "\" is a directory, which the store does not replace");
    }
    if (!there.ok() && !there.status().IsNotFound()) return there.status();
    TempFile temp(env_, dir + "/" + TempName());
    AWC_ASSIGN_OR_RETURN(
        std::unique_ptr<WritableFile> out,
        env_->NewWritableFile(temp.path(), Env::CreateMode::kExclusive));
    AWC_RETURN_IF_ERROR(fill(out.get()));
    AWC_RETURN_IF_ERROR(out->Sync());
    AWC_RETURN_IF_ERROR(out->Close());
    AWC_RETURN_IF_ERROR(env_->RenameFile(temp.path(), path));
    temp.Commit();
    return env_->SyncDir(dir);
  }

  // Creates <root>/<tenant>/sha256/<xx> when missing, and fsyncs the
  // directories above it so the new entries survive a crash. A link or a
  // file among them is kFailedPrecondition: nothing is written through it.
  Status EnsureDir(const std::string& dir) {
    Result<FileInfo> info = env_->Stat(dir, kNoLinks);
    if (info.ok()) return RequireDirectory(dir, *info);
    if (!info.status().IsNotFound()) return info.status();
    AWC_RETURN_IF_ERROR(env_->CreateDirs(dir));
    AWC_ASSIGN_OR_RETURN(FileInfo made, env_->Stat(dir, kNoLinks));
    AWC_RETURN_IF_ERROR(RequireDirectory(dir, made));
    for (std::string d = dir; d.size() > root_.size();) {
      d.resize(d.rfind('/'));
      AWC_RETURN_IF_ERROR(env_->SyncDir(d.empty() ? "/" : d));
    }
    return Status::OK();
  }

  static Status RequireDirectory(const std::string& dir, const FileInfo& info) {
    if (info.type == FileInfo::Type::kDirectory) return Status::OK();
    return Status::FailedPrecondition("\"" + dir + "\" is not a directory (" +
                                      TypeName(info.type) + ")");
  }

  const std::string root_;
  Env* const env_;
};

}  // namespace

Result<std::unique_ptr<ObjectStore>> NewFileStore(const std::string& root,
                                                  Env* env) {
  if (root.empty() || root[0] != '/') {
    return Status::InvalidArgument("file store root \"" + root +
                                   "\" is not an absolute path");
  }
  std::string dir = root;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir == "/") dir.clear();  // paths are built as root + "/" + ...
  AWC_RETURN_IF_ERROR(FileStore(dir, env).Init());
  // The root's own path may go through links (/srv/cas -> /data/cas): it
  // is resolved once, so that no link is followed below it.
  AWC_ASSIGN_OR_RETURN(std::string real,
                       env->RealPath(dir.empty() ? "/" : dir));
  if (real == "/") real.clear();
  return std::unique_ptr<ObjectStore>(std::make_unique<FileStore>(real, env));
}

}  // namespace awc::store
