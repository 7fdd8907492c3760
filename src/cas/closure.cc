#include "cas/closure.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string_view>
#include <utility>

#include "cas/manifest.h"
#include "digest/sha256.h"

namespace awc::cas {
namespace {

constexpr size_t kMinBatch = 16;
constexpr size_t kMaxBatch = 256;
// Manifest bytes one batch may buffer (a batch always holds at least one).
constexpr uint64_t kBatchManifestBytes = 64 * 1024 * 1024;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// Inside one object's read, the checkpoint runs after each this many bytes
// (a lease must not run out while one large object streams).
constexpr uint64_t kCheckpointBytes = 1024 * 1024;

size_t BatchSize(const store::ObjectStore& store) {
  size_t n = 4 * static_cast<size_t>(std::max(store.parallelism(), 1));
  return std::clamp(n, kMinBatch, kMaxBatch);
}

// An open-addressing set of indexes into the closure's object list, keyed
// by their digests: 4 bytes a slot, so ten million objects cost tens of
// megabytes rather than a node each. Hashing is seeded per walk, so
// manifests cannot be crafted to collide.
class DigestIndex {
 public:
  explicit DigestIndex(const std::vector<ClosureObject>& objects)
      : objects_(objects), slots_(1024, kNone), seed_(RandomSeed()) {}

  // The index of the object with `digest`, or kNone.
  uint32_t Find(const digest::RawDigest& digest) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash(digest) & mask;; i = (i + 1) & mask) {
      uint32_t idx = slots_[i];
      if (idx == kNone || objects_[idx].sha256 == digest) return idx;
    }
  }

  // Adds objects[idx], whose digest is not in the set yet.
  void Insert(uint32_t idx) {
    if ((size_ + 1) * 10 > slots_.size() * 7) Grow();
    Place(idx);
    ++size_;
  }

 private:
  static uint64_t RandomSeed() {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }

  uint64_t Hash(const digest::RawDigest& digest) const {
    uint64_t h = seed_;
    for (size_t off = 0; off < digest.size(); off += 8) {
      uint64_t w = 0;
      std::memcpy(&w, digest.data() + off, 8);
      h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 29;
    }
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    return h ^ (h >> 32);
  }

  void Place(uint32_t idx) {
    size_t mask = slots_.size() - 1;
    size_t i = Hash(objects_[idx].sha256) & mask;
    while (slots_[i] != kNone) i = (i + 1) & mask;
    slots_[i] = idx;
  }

  void Grow() {
    std::vector<uint32_t> old(slots_.size() * 2, kNone);
    old.swap(slots_);
    for (uint32_t idx : old) {
      if (idx != kNone) Place(idx);
    }
  }

  const std::vector<ClosureObject>& objects_;
  std::vector<uint32_t> slots_;  // size a power of two
  size_t size_ = 0;
  uint64_t seed_;
};

// One object's read: the sink hashes and counts; manifests are also kept,
// up to their declared size and never past the manifest limit.
struct Read {
  digest::Sha256 hash;
  uint64_t length = 0;
  uint64_t unchecked = 0;  // bytes since the last checkpoint in this read
  bool manifest = false;
  bool has_declared = false;  // false for the root only
  uint64_t declared = 0;
  std::string buffer;
  bool longer = false;     // more than declared: the sink stopped the read
  bool too_large = false;  // the sink aborted the read
  Status status = Status::Internal("the store did not complete the read");
};

void MakeRequests(const std::string& tenant_id,
                  const std::vector<std::string>& digests,
                  std::vector<Read>& reads, uint64_t manifest_max,
                  const Checkpoint& checkpoint,
                  std::vector<store::ObjectStore::GetRequest>& requests) {
  requests.clear();
  requests.reserve(digests.size());
  for (size_t i = 0; i < digests.size(); ++i) {
    Read* r = &reads[i];
    store::ObjectStore::GetRequest req;
    req.key = store::ObjectKey{tenant_id, digests[i]};
    req.sink = [r, manifest_max,
                &checkpoint](std::string_view chunk) -> Status {
      r->length += chunk.size();
      if (r->has_declared && r->length > r->declared) {
        // Longer than its entry says: read no further, since the object
        // may not end at all (a device, a server that streams for ever).
        r->longer = true;
        std::string().swap(r->buffer);
        return Status::Corruption("object is longer than declared");
      }
      r->hash.Update(chunk);
      r->unchecked += chunk.size();
      if (r->unchecked >= kCheckpointBytes && checkpoint) {
        r->unchecked = 0;
        AWC_RETURN_IF_ERROR(checkpoint());
      }
      if (!r->manifest) return Status::OK();
      if (r->length > manifest_max) {
        r->too_large = true;
        return Status::Corruption("manifest exceeds the size limit");
      }
      r->buffer.append(chunk);
      return Status::OK();
    };
    req.done = [r](Status s) { r->status = std::move(s); };
    requests.push_back(std::move(req));
  }
}

// Whether a finished read is judged by CheckRead(); otherwise its status is
// a store error (kTransient: retry the job later) or a checkpoint's.
bool Judged(const Read& r) {
  return r.status.ok() || r.status.IsNotFound() || r.too_large || r.longer ||
         r.status.IsCorruption();
}

// The verdict for one finished read that is not a store error, or kOk.
// `detail` explains a bad verdict.
Verdict CheckRead(Read& r, std::string_view digest, uint64_t manifest_max,
                  std::string* detail) {
  if (r.too_large) {
    *detail =
        "manifest is larger than " + std::to_string(manifest_max) + " bytes";
    return Verdict::kManifestTooLarge;
  }
  if (r.status.IsNotFound()) {
    *detail = "object is missing from the store";
    return Verdict::kMissingObject;
  }
  if (r.longer) {
    *detail = "object is longer than the " + std::to_string(r.declared) +
              " bytes its entry declares";
    return Verdict::kSizeMismatch;
  }
  if (r.status.IsCorruption()) {
    // The store holds something that cannot be an object (file://: not a
    // regular file); its message says what, never the content.
    *detail = r.status.message();
    return Verdict::kInvalidObject;
  }
  if ("sha256:" + r.hash.FinishHex() != digest) {
    *detail = "object content does not match its digest";
    return Verdict::kDigestMismatch;
  }
  if (r.has_declared && r.length != r.declared) {
    *detail = "object is " + std::to_string(r.length) +
              " bytes, its entry declares " + std::to_string(r.declared);
    return Verdict::kSizeMismatch;
  }
  return Verdict::kOk;
}

class Walker {
 public:
  Walker(store::ObjectStore& store, const std::string& tenant_id,
         const ClosureLimits& limits, const Checkpoint& checkpoint)
      : store_(store),
        tenant_id_(tenant_id),
        limits_(limits),
        checkpoint_(checkpoint),
        max_objects_(std::min<uint64_t>(limits.max_objects, kNone - 1)),
        index_(report_.objects) {}

  Result<ClosureReport> Run(const std::string& root_digest) {
    if (limits_.max_depth < 0) {
      Fail(Verdict::kDepthExceeded, root_digest, DepthDetail());
      return Finish();
    }
    if (max_objects_ < 1) {
      Fail(Verdict::kTooManyObjects, root_digest, ObjectsDetail());
      return Finish();
    }
    digest::RawDigest root;
    digest::ParseDigest(root_digest, &root);  // validated by the caller
    report_.objects.push_back({root, 0, true});
    index_.Insert(0);
    std::vector<Item> wave = {{0, true}};
    size_t batch_max = BatchSize(store_);
    bool first_batch = true;
    for (int depth = 0; !wave.empty() && !failed_; ++depth) {
      std::vector<Item> next;
      uint32_t known_before = static_cast<uint32_t>(report_.objects.size());
      for (size_t pos = 0; pos < wave.size() && !failed_;) {
        if (!first_batch && checkpoint_) AWC_RETURN_IF_ERROR(checkpoint_());
        first_batch = false;
        size_t end = pos;
        uint64_t manifest_bytes = 0;
        while (end < wave.size() && end - pos < batch_max) {
          if (wave[end].manifest) {
            uint64_t b = limits_.manifest_max_bytes;
            if (depth > 0) b = std::min(b, report_.objects[wave[end].idx].size);
            if (end > pos && manifest_bytes + b > kBatchManifestBytes) break;
            manifest_bytes += b;
          }
          ++end;
        }
        AWC_RETURN_IF_ERROR(
            ReadBatch(wave, pos, end, depth, known_before, next));
        pos = end;
      }
      // A blob named as a manifest later in this wave is read as one.
      for (Item& item : next) {
        if (item.idx >= known_before) {
          item.manifest = report_.objects[item.idx].is_manifest;
        }
      }
      wave = std::move(next);
    }
    return Finish();
  }

 private:
  struct Item {
    uint32_t idx;
    bool manifest;  // read as a manifest (else only hashed)
  };

  std::string DepthDetail() const {
    return "manifests are nested deeper than " +
           std::to_string(limits_.max_depth) + " levels";
  }
  std::string ObjectsDetail() const {
    return "closure has more than " + std::to_string(limits_.max_objects) +
           " objects";
  }

  void Fail(Verdict v, std::string_view digest, std::string detail) {
    failed_ = true;
    report_.verdict = v;
    report_.digest = std::string(digest);
    report_.detail = std::move(detail);
  }

  ClosureReport Finish() {
    if (failed_) {
      std::vector<ClosureObject>().swap(report_.objects);
    } else {
      for (const ClosureObject& o : report_.objects) report_.bytes += o.size;
    }
    return std::move(report_);
  }

  // Reads wave[begin, end) at `depth` and takes in what the manifests
  // name. Objects with an index >= `known_before` have not been read yet.
  Status ReadBatch(const std::vector<Item>& wave, size_t begin, size_t end,
                   int depth, uint32_t known_before, std::vector<Item>& next) {
    size_t n = end - begin;
    std::vector<Read> reads(n);
    // Copies: taking in entries may reallocate report_.objects.
    std::vector<std::string> digests(n);
    for (size_t i = 0; i < n; ++i) {
      const Item& item = wave[begin + i];
      const ClosureObject& o = report_.objects[item.idx];
      digests[i] = o.digest();
      reads[i].manifest = item.manifest;
      reads[i].has_declared = item.idx != 0 || depth != 0;
      reads[i].declared = o.size;
    }
    std::vector<store::ObjectStore::GetRequest> requests;
    MakeRequests(tenant_id_, digests, reads, limits_.manifest_max_bytes,
                 checkpoint_, requests);
    store_.GetMany(requests);
    report_.reads += n;

    for (size_t i = 0; i < n; ++i) {
      Read& r = reads[i];
      uint32_t idx = wave[begin + i].idx;
      if (!Judged(r)) return r.status;
      std::string detail;
      Verdict v = CheckRead(r, digests[i], limits_.manifest_max_bytes, &detail);
      if (v != Verdict::kOk) {
        Fail(v, digests[i], std::move(detail));
        return Status::OK();
      }
      if (!r.has_declared) report_.objects[idx].size = r.length;
      if (!r.manifest) continue;
      Result<Manifest> m = ParseManifest(r.buffer);
      std::string().swap(r.buffer);
      if (!m.ok()) {
        Fail(Verdict::kMalformedManifest, digests[i], m.status().message());
        return Status::OK();
      }
      for (const ManifestEntry& e : m->entries) {
        TakeEntry(e, depth + 1, known_before, next);
        if (failed_) return Status::OK();
      }
    }
    return Status::OK();
  }

  // Records that a manifest at depth - 1 names `e`.
  void TakeEntry(const ManifestEntry& e, int depth, uint32_t known_before,
                 std::vector<Item>& next) {
    bool is_manifest = e.kind == ManifestEntry::Kind::kManifest;
    digest::RawDigest raw;
    digest::ParseDigest(e.digest, &raw);  // ParseManifest checked its syntax
    uint32_t idx = index_.Find(raw);
    if (idx == kNone) {
      if (report_.objects.size() >= max_objects_) {
        Fail(Verdict::kTooManyObjects, e.digest, ObjectsDetail());
        return;
      }
      if (is_manifest && depth > limits_.max_depth) {
        Fail(Verdict::kDepthExceeded, e.digest, DepthDetail());
        return;
      }
      idx = static_cast<uint32_t>(report_.objects.size());
      report_.objects.push_back({raw, e.size, is_manifest});
      index_.Insert(idx);
      next.push_back({idx, is_manifest});
      return;
    }
    ClosureObject& o = report_.objects[idx];
    if (o.size != e.size) {
      Fail(Verdict::kSizeMismatch, e.digest,
           "object is declared with sizes " + std::to_string(o.size) + " and " +
               std::to_string(e.size));
      return;
    }
    if (!is_manifest || o.is_manifest) return;
    // Known so far only as a blob: it must parse as a manifest too.
    if (depth > limits_.max_depth) {
      Fail(Verdict::kDepthExceeded, e.digest, DepthDetail());
      return;
    }
    o.is_manifest = true;
    // Not read yet: it waits in `next`, whose kinds are settled when that
    // wave starts. Else read it once more, as a manifest.
    if (idx < known_before) next.push_back({idx, true});
  }

  store::ObjectStore& store_;
  const std::string& tenant_id_;
  const ClosureLimits& limits_;
  const Checkpoint& checkpoint_;
  uint64_t max_objects_;
  ClosureReport report_;
  DigestIndex index_;
  bool failed_ = false;
};

}  // namespace

const char* VerdictCode(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kMissingObject:
      return "missing_object";
    case Verdict::kDigestMismatch:
      return "digest_mismatch";
    case Verdict::kSizeMismatch:
      return "size_mismatch";
    case Verdict::kMalformedManifest:
      return "malformed_manifest";
    case Verdict::kManifestTooLarge:
      return "manifest_too_large";
    case Verdict::kDepthExceeded:
      return "depth_limit";
    case Verdict::kTooManyObjects:
      return "object_limit";
    case Verdict::kInvalidObject:
      return "invalid_object";
  }
  return "unknown";
}

Result<ClosureReport> WalkClosure(store::ObjectStore& store,
                                  const std::string& tenant_id,
                                  const std::string& root_digest,
                                  const ClosureLimits& limits,
                                  const Checkpoint& checkpoint) {
  AWC_RETURN_IF_ERROR(store::MakeKey(tenant_id, root_digest).status());
  return Walker(store, tenant_id, limits, checkpoint).Run(root_digest);
}

Result<std::vector<BadObject>> VerifyObjects(
    store::ObjectStore& store, const std::string& tenant_id,
    const std::vector<VerifyTarget>& targets, const Checkpoint& checkpoint) {
  for (const VerifyTarget& t : targets) {
    AWC_RETURN_IF_ERROR(store::MakeKey(tenant_id, t.digest).status());
  }
  std::vector<BadObject> bad;
  size_t batch_max = BatchSize(store);
  for (size_t pos = 0; pos < targets.size();) {
    if (pos > 0 && checkpoint) AWC_RETURN_IF_ERROR(checkpoint());
    size_t n = std::min(batch_max, targets.size() - pos);
    std::vector<Read> reads(n);
    std::vector<std::string> digests(n);
    for (size_t i = 0; i < n; ++i) {
      digests[i] = targets[pos + i].digest;
      reads[i].has_declared = targets[pos + i].size.has_value();
      reads[i].declared = targets[pos + i].size.value_or(0);
    }
    std::vector<store::ObjectStore::GetRequest> requests;
    MakeRequests(tenant_id, digests, reads, 0, checkpoint, requests);
    store.GetMany(requests);
    for (size_t i = 0; i < n; ++i) {
      Read& r = reads[i];
      if (!Judged(r)) return r.status;
      std::string detail;
      Verdict v = CheckRead(r, digests[i], 0, &detail);
      if (v != Verdict::kOk) bad.push_back({digests[i], v});
    }
    pos += n;
  }
  return bad;
}

}  // namespace awc::cas
