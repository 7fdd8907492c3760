// ObjectStore: the content-addressed object store behind AWC_CAS_URL
// (docs/store.md, "Object store"), one interface for memory://,
// file:// and s3://. OpenStore() (open_store.h) picks the implementation.
//
// Contract:
//  - Objects are addressed by ObjectKey (tenant id + "sha256:<hex>"); both
//    are validated by MakeKey() before any key or path is built, so a key
//    can never escape its root or prefix. The stored key is
//    "<tenant>/sha256/<hex[0:2]>/<hex>" under the store's root or prefix.
//  - Reads stream: Get() hands the object to a sink in chunks, so memory
//    stays flat whatever the object's size.
//  - Writes are atomic: a reader sees the whole object or nothing.
//  - Errors are classified: kNotFound (the object is definitely absent),
//    kCorruption (what the store holds at the key cannot be an object:
//    file:// finds a directory, FIFO, device or symbolic link there; it is
//    not opened for reading, so it cannot block or stream for ever),
//    kTransient (timeouts, connection errors, 5xx, 429/503 SlowDown: retry
//    later), anything else a permanent error (bad credentials, missing
//    bucket, a full disk) that retrying soon will not fix.
//  - Deleting an object that is already absent succeeds.
//  - A store is used by one thread. GetMany() may run its requests
//    concurrently (S3 drives them on the worker's event loop); the others
//    run them one after another.
#ifndef AWC_STORE_OBJECT_STORE_H_
#define AWC_STORE_OBJECT_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace awc::store {

struct ObjectKey {
  std::string tenant_id;
  std::string digest;  // "sha256:<64 lowercase hex>"

  bool operator==(const ObjectKey&) const = default;
};

// Validates both parts; InvalidArgument names which one is malformed.
Result<ObjectKey> MakeKey(std::string_view tenant_id, std::string_view digest);

// "<tenant>/sha256/<hex[0:2]>/<hex>" (no leading slash).
std::string RelativeKey(const ObjectKey& key);

// PutFile()'s error when the content of `path` does not hash to the digest
// of `key`.
Status ContentChanged(const ObjectKey& key, const std::string& path);

// Receives an object's bytes in order. Returning an error stops the read;
// Get() then returns that error.
using ChunkSink = std::function<Status(std::string_view chunk)>;

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // "memory", "file" or "s3".
  virtual const char* scheme() const = 0;

  // Streams the object to `sink`.
  virtual Status Get(const ObjectKey& key, const ChunkSink& sink) = 0;

  struct GetRequest {
    ObjectKey key;
    ChunkSink sink;                    // receives the bytes
    std::function<void(Status)> done;  // called exactly once, at the end
  };
  // Runs every request, starting them in order, up to parallelism() at a
  // time where the store can; returns when all are done. The default runs
  // them one after another with Get().
  virtual void GetMany(std::vector<GetRequest>& requests);

  // The object's size, or kNotFound.
  virtual Result<uint64_t> Head(const ObjectKey& key) = 0;

  struct HeadRequest {
    ObjectKey key;
    std::function<void(Result<uint64_t>)> done;  // called exactly once
  };
  // Head() of every request, as GetMany runs its requests: up to
  // parallelism() at a time where the store can, one after another by
  // default.
  virtual void HeadMany(std::vector<HeadRequest>& requests);

  // Stores `data` as the object, atomically. Overwriting is allowed (the
  // content is the same by construction). The caller holds the bytes it
  // hashed: they are stored as given.
  virtual Status Put(const ObjectKey& key, std::string_view data) = 0;
  // Stores the file at `path` (streamed, not loaded whole) as the object.
  // The file is hashed as it is read, and the object becomes visible only
  // if what was read hashes to the key's digest: a file that changed since
  // the caller hashed it is kCorruption (ContentChanged()) and nothing is
  // stored.
  virtual Status PutFile(const ObjectKey& key, const std::string& path) = 0;

  // Deletes the objects (S3: DeleteObjects, at most 1000 keys a request).
  // Returns one Status per key, in order; absent objects are OK. When the
  // call succeeds the deletions are durable (file://: the directories are
  // fsynced). The call's own Status is for failures that hit every key.
  virtual Result<std::vector<Status>> DeleteMany(
      const std::vector<ObjectKey>& keys) = 0;

  // One key found under a tenant's prefix by List().
  struct ListedKey {
    // "sha256:<hex>" when the key is an object's; empty for anything else
    // found there (a temporary file of an interrupted write, a key some
    // other program put under the prefix).
    std::string digest;
    // The key relative to the tenant's prefix ("sha256/ab/<hex>", or the
    // other thing's name), for reports.
    std::string name;
    uint64_t size = 0;
    // When the store last wrote it (S3 LastModified, the file's mtime,
    // memory://: the Put), in seconds since the Unix epoch.
    int64_t modified = 0;
  };
  using ListFn = std::function<Status(const ListedKey& key)>;
  // Calls `each` for every key under `tenant_id`'s prefix, the objects in
  // digest order; with `after` (a digest) only the objects whose digest is
  // greater, and the other keys that sort after it as the store lists
  // them (a resumed listing may miss a few of those). An error of `each`
  // stops the listing and is returned. Memory does not grow with the
  // number of keys beyond one directory (file://) or page (s3://).
  virtual Status List(const std::string& tenant_id, const std::string& after,
                      const ListFn& each) = 0;

  // How many GetMany requests run at once (1 unless the store overlaps I/O).
  virtual int parallelism() const { return 1; }

  // The store marker (store_marker.h), kept beside the tenants' objects:
  // "<root>/.awc-store" (file://), "[<prefix>/].awc-store" (s3://); no
  // tenant id can take that name, and List() never shows it. ReadMarker()
  // is kNotFound when there is none, and an error when it holds more than
  // kMaxMarkerBytes; memory:// keeps it in the process. WriteMarker()
  // replaces it atomically, as Put() writes an object.
  static constexpr std::string_view kMarkerName = ".awc-store";
  static constexpr size_t kMaxMarkerBytes = 4096;
  virtual Result<std::string> ReadMarker() = 0;
  virtual Status WriteMarker(std::string_view content) = 0;
};

}  // namespace awc::store

#endif  // AWC_STORE_OBJECT_STORE_H_
