// The closure of a snapshot: every object reachable from its root manifest,
// and the checks that make a snapshot valid (docs/store.md,
// "Manifests and closures").
//
// WalkClosure contract:
//  - Visits each digest once, however many manifests share it (a DAG),
//    breadth first, one depth after the other (a depth's objects in the
//    order their first entries were met); objects are read through
//    ObjectStore::GetMany in batches of at most 16 * store.parallelism()
//    requests (at least 16, at most 1024, and no more manifest bytes than
//    64 MiB unless a single manifest needs more), so a store that overlaps
//    I/O (S3) fetches in parallel and memory stays bounded.
//  - Every object is hashed while it streams (memory stays flat for blobs;
//    manifests are buffered up to limits.manifest_max_bytes) and its length
//    is checked against the size its parent entry declares. A read stops as
//    soon as it has more bytes than declared (a size mismatch), so an
//    object that never ends cannot hold a worker.
//  - Manifests are parsed with ParseManifest; the root must be a manifest.
//    A digest named as a blob in one place and as a manifest in another
//    must parse as a manifest (it is then read a second time if it was
//    already read as a blob). The same digest declared with two sizes is a
//    size mismatch.
//  - The walk stops at the first problem and reports it as a verdict with
//    the offending digest: missing object, invalid object (the store holds
//    something that cannot be an object: kCorruption from the store, e.g. a
//    directory or a FIFO under file://), digest mismatch, size mismatch,
//    malformed manifest, manifest too large, depth limit (the root is at
//    depth 0; a manifest's depth is that of the shortest path reaching it
//    through manifest entries, and one deeper than limits.max_depth is
//    refused unread), object limit (more than limits.max_objects digests,
//    the root included). Order is deterministic: within a batch the first
//    problem in request order wins; for one object shorter than declared a
//    digest mismatch wins over the size mismatch (one longer than declared
//    is read no further, so its digest is not known).
//  - Store errors other than "not found" and kCorruption are not verdicts:
//    they come back as the Status (kTransient means retry the job later).
//  - `checkpoint` is called between batches, after every 2^20 entries of a
//    depth's sorted pass and, inside the read of one object, after every
//    MiB of it (handlers renew their lease there, so a
//    single large object cannot outlast the lease); an error from it aborts
//    the read and the walk with that error. It may be empty.
//  - `trust` (may be empty) is asked about the objects of a depth before
//    they are read, in chunks of up to 4096 (a manifest as a manifest, the
//    root with size 0 meaning "unknown"). An object it trusts is not read:
//    it joins the closure with `trusted` set, and what lies under it is not
//    walked (its content and everything it reaches were verified before:
//    docs/store.md, "Shared content"). Its error stops the walk with it.
//  - The report lists every manifest that was read and parsed, and the
//    entries of each (`edges`), so the caller can record them.
//  - A malformed tenant id or root digest is kInvalidArgument.
//  - Memory does not grow with the closure: the digests seen so far, the
//    next depth's objects and the entries the manifests of a depth name are
//    kept in limits.spill (cas/spill.h: records in memory up to its budget,
//    then in temporary files, removed when the walk and its report are
//    done). A depth's entries are checked against what was seen before in
//    one sorted pass when the depth's reads are done (or stop at a bad
//    object); the verdict is still the one of the first problem in the
//    order above. Beyond the budget, the walk holds one batch of reads and
//    fixed buffers (64 KiB per open spill file, at most 32 merged at once).
//    Spill files that cannot be written are a Status error (kIoError).
//
// VerifyObjects (scrub) re-reads a known list of objects, checking digest
// and size, and reports every bad one instead of stopping at the first; it
// calls `checkpoint` as WalkClosure does.
#ifndef AWC_CAS_CLOSURE_H_
#define AWC_CAS_CLOSURE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cas/spill.h"
#include "common/status.h"
#include "digest/ids.h"
#include "store/object_store.h"

namespace awc::cas {

struct ClosureLimits {
  uint64_t manifest_max_bytes = 16 * 1024 * 1024;
  int max_depth = 64;
  uint64_t max_objects = 10'000'000;
  SpillOptions spill;  // where the walk keeps what does not fit its budget
};

enum class Verdict {
  kOk,
  kMissingObject,
  kDigestMismatch,
  kSizeMismatch,
  kMalformedManifest,
  kManifestTooLarge,
  kDepthExceeded,
  kTooManyObjects,
  kInvalidObject,
};

// "ok", "missing_object", "digest_mismatch", "size_mismatch",
// "malformed_manifest", "manifest_too_large", "depth_limit",
// "object_limit", "invalid_object": the `code` recorded in
// snapshots.failure.
const char* VerdictCode(Verdict verdict);

struct ClosureObject {
  digest::RawDigest
      sha256{};  // compact: a closure may hold ten million of these
  uint64_t size = 0;
  bool is_manifest = false;
  bool trusted = false;  // taken on trust, not read (see WalkClosure)

  std::string digest() const { return digest::FormatDigest(sha256); }
};

// One entry of a manifest the walk read: what `parent` names, as declared.
struct ClosureEdge {
  digest::RawDigest parent{};
  digest::RawDigest child{};
  uint64_t child_size = 0;
  bool child_manifest = false;
};

// Records a walk left where it kept them (memory, or a temporary file
// removed with the last copy of this handle), read in batches so a large
// closure never sits in memory whole.
template <typename T>
class Spooled {
 public:
  Spooled() = default;
  Spooled(std::shared_ptr<void> owner, std::shared_ptr<const Spool<T>> spool)
      : owner_(std::move(owner)), spool_(std::move(spool)) {}

  uint64_t size() const { return spool_ ? spool_->size() : 0; }
  bool empty() const { return size() == 0; }

  // Calls `fn` with consecutive batches of at most `batch` records, in
  // order, until done or it returns an error (then returned).
  Status ForEachBatch(
      size_t batch,
      const std::function<Status(const std::vector<T>&)>& fn) const {
    if (!spool_ || batch == 0) return Status::OK();
    AWC_ASSIGN_OR_RETURN(auto reader, spool_->NewReader());
    std::vector<T> out;
    out.reserve(static_cast<size_t>(std::min<uint64_t>(batch, size())));
    T record;
    for (;;) {
      AWC_ASSIGN_OR_RETURN(bool more, reader->Next(&record));
      if (more) out.push_back(record);
      if (!out.empty() && (out.size() == batch || !more)) {
        AWC_RETURN_IF_ERROR(fn(out));
        out.clear();
      }
      if (!more) return Status::OK();
    }
  }
  // All of them at once (small closures, tests).
  Result<std::vector<T>> All() const {
    std::vector<T> all;
    AWC_RETURN_IF_ERROR(
        ForEachBatch(std::max<uint64_t>(size(), 1), [&all](const auto& b) {
          all.insert(all.end(), b.begin(), b.end());
          return Status::OK();
        }));
    return all;
  }

 private:
  std::shared_ptr<void> owner_;  // the walk's files (keeps them until done)
  std::shared_ptr<const Spool<T>> spool_;
};

// The objects of a walked closure, each digest once, in digest order.
using ClosureObjects = Spooled<ClosureObject>;

struct ClosureReport {
  Verdict verdict = Verdict::kOk;
  std::string digest;  // the offending object when verdict != kOk
  std::string detail;  // one line for operators; never object contents
  // Whether the verdict is about an object the walk read (missing, digest
  // or size mismatch, invalid object), and then the size its parent
  // declared (none for the root): what a repair must restore.
  bool read_bad = false;
  std::optional<uint64_t> declared_size;
  // The closure and the sum of its sizes; empty and 0 when verdict != kOk.
  ClosureObjects objects;
  uint64_t bytes = 0;
  // The root's length as the walk read it (0 when it was taken on trust):
  // no entry declares it, so the trust function was asked about the root
  // with size 0, and a record of what the walk read must take this.
  uint64_t root_size = 0;
  uint64_t reads = 0;  // reads issued to the store
  // Objects taken on trust (in `objects` with `trusted` set); when any
  // were, `objects` and `bytes` do not include what lies under them.
  uint64_t trusted = 0;
  // The manifests read and parsed, in the order read, and their entries.
  Spooled<digest::RawDigest> manifests_read;
  Spooled<ClosureEdge> edges;
};

// Called between the reads of a long walk (to renew a lease): an error stops
// the walk with that error.
using BetweenReadsFn = std::function<Status()>;

// Which of `objects` the walk may take on trust (one answer each).
using TrustFn = std::function<Result<std::vector<bool>>(
    const std::vector<ClosureObject>& objects)>;

Result<ClosureReport> WalkClosure(store::ObjectStore& store,
                                  const std::string& tenant_id,
                                  const std::string& root_digest,
                                  const ClosureLimits& limits,
                                  const BetweenReadsFn& checkpoint,
                                  const TrustFn& trust = nullptr);

struct VerifyTarget {
  std::string digest;
  std::optional<uint64_t> size;  // unknown: only the digest is checked
};

struct BadObject {
  std::string digest;
  Verdict why = Verdict::kOk;  // missing, digest or size mismatch
};

// Called before each batch of reads with the bytes (as declared; unknown
// sizes count 0) and objects it will read: waits as long as the host's
// read budget wants (process/io_budget.h). An error stops the reads.
using PaceFn = std::function<Status(uint64_t bytes, uint64_t objects)>;

// Checks every target, in batches as WalkClosure reads, and returns the bad
// ones in target order (empty when all are good). Status errors, the
// checkpoint and malformed ids as for WalkClosure; `pace` (may be empty)
// before each batch.
Result<std::vector<BadObject>> VerifyObjects(
    store::ObjectStore& store, const std::string& tenant_id,
    const std::vector<VerifyTarget>& targets, const BetweenReadsFn& checkpoint,
    const PaceFn& pace = nullptr);

}  // namespace awc::cas

#endif  // AWC_CAS_CLOSURE_H_
