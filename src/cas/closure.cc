#include "cas/closure.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "cas/manifest.h"
#include "cas/object_read.h"
#include "digest/sha256.h"

namespace awc::cas {
namespace {

// Manifest bytes one batch may buffer (a batch always holds at least one).
constexpr uint64_t kBatchManifestBytes = 64 * 1024 * 1024;

// A manifest entry met during one depth; `seq` numbers them as met.
struct EntryRecord {
  digest::RawDigest digest{};
  uint64_t seq = 0;
  uint64_t size = 0;
  bool manifest = false;
};

int CompareDigests(const digest::RawDigest& a, const digest::RawDigest& b) {
  return std::memcmp(a.data(), b.data(), a.size());
}

struct DigestLess {
  bool operator()(const digest::RawDigest& a,
                  const digest::RawDigest& b) const {
    return CompareDigests(a, b) < 0;
  }
};

// Objects of a depth asked about trust at once (one catalog query each).
constexpr size_t kTrustChunk = 4096;

struct EntryByDigest {
  bool operator()(const EntryRecord& a, const EntryRecord& b) const {
    int c = CompareDigests(a.digest, b.digest);
    return c != 0 ? c < 0 : a.seq < b.seq;
  }
};

// An object of the next depth: new (first named by entry `seq`), or
// known already and to be read again as a manifest.
struct NextRecord {
  uint64_t seq = 0;
  ClosureObject object;
  bool is_new = false;
};

struct NextBySeq {
  bool operator()(const NextRecord& a, const NextRecord& b) const {
    return a.seq < b.seq;
  }
};

// The first problem a depth's entries show, by entry number.
struct Problem {
  uint64_t seq = std::numeric_limits<uint64_t>::max();
  Verdict verdict = Verdict::kOk;
  std::string digest;
  std::string detail;
  std::optional<uint64_t> declared;  // a bad read's declared size

  bool found() const { return verdict != Verdict::kOk; }
};

// During the sorted pass over a depth's entries, the checkpoint runs after
// each this many of them.
constexpr uint64_t kCheckpointEntries = 1 << 20;

// The walk, one depth (a "wave") at a time. `seen_` holds every object of
// the depths up to the current one, sorted by digest; `queue_` the current
// depth's objects in the order they are read. The entries the current
// depth's manifests name are collected in a sorter; Settle() merges them
// with `seen_` to find the next depth's objects and the problems, which it
// orders by entry number, so the verdict is the one an entry-by-entry walk
// would give.
class Walker {
 public:
  Walker(store::ObjectStore& store, const std::string& tenant_id,
         const ClosureLimits& limits, const BetweenReadsFn& checkpoint,
         const TrustFn& trust)
      : store_(store),
        tenant_id_(tenant_id),
        limits_(limits),
        checkpoint_(checkpoint),
        trust_(trust),
        files_(std::make_shared<SpillFiles>(limits.spill)),
        budget_(std::max<size_t>(limits.spill.memory_bytes, 8 * 1024)) {}

  Result<ClosureReport> Run(const std::string& root_digest) {
    if (limits_.max_depth < 0) {
      Fail(Verdict::kDepthExceeded, root_digest, DepthDetail());
      return Finish();
    }
    if (limits_.max_objects < 1) {
      Fail(Verdict::kTooManyObjects, root_digest, ObjectsDetail());
      return Finish();
    }
    ClosureObject root;
    digest::ParseDigest(root_digest, &root.sha256);  // validated by the caller
    root.is_manifest = true;
    seen_ = NewSpool();
    AWC_RETURN_IF_ERROR(seen_->Finish());
    manifests_read_ =
        std::make_shared<Spool<digest::RawDigest>>(files_.get(), budget_ / 16);
    edges_ = std::make_shared<Spool<ClosureEdge>>(files_.get(), budget_ / 16);
    queue_ = NewSpool();
    AWC_RETURN_IF_ERROR(queue_->Append(root));
    AWC_RETURN_IF_ERROR(queue_->Finish());
    for (int depth = 0; !failed_ && queue_->size() > 0; ++depth) {
      AWC_RETURN_IF_ERROR(Wave(depth));
    }
    if (!failed_) AWC_RETURN_IF_ERROR(MarkTrusted());
    return Finish();
  }

 private:
  std::shared_ptr<Spool<ClosureObject>> NewSpool() {
    return std::make_shared<Spool<ClosureObject>>(files_.get(), budget_ / 8);
  }

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
    if (!failed_) {
      report_.objects = ClosureObjects(files_, seen_);
      report_.bytes = bytes_;
      if (manifests_read_->Finish().ok() && edges_->Finish().ok()) {
        report_.manifests_read =
            Spooled<digest::RawDigest>(files_, manifests_read_);
        report_.edges = Spooled<ClosureEdge>(files_, edges_);
      }
    }
    return std::move(report_);
  }

  // Sets `trusted` on the closure's objects that were taken on trust (one
  // merge of the closure with their sorted digests).
  Status MarkTrusted() {
    if (!trusted_) return Status::OK();
    AWC_ASSIGN_OR_RETURN(auto trusted, trusted_->Finish());
    AWC_ASSIGN_OR_RETURN(auto seen, seen_->NewReader());
    std::shared_ptr<Spool<ClosureObject>> marked = NewSpool();
    digest::RawDigest t{};
    AWC_ASSIGN_OR_RETURN(bool have_t, trusted->Next(&t));
    ClosureObject o;
    for (;;) {
      AWC_ASSIGN_OR_RETURN(bool more, seen->Next(&o));
      if (!more) break;
      while (have_t && CompareDigests(t, o.sha256) < 0) {
        AWC_ASSIGN_OR_RETURN(have_t, trusted->Next(&t));
      }
      o.trusted = have_t && t == o.sha256;
      AWC_RETURN_IF_ERROR(marked->Append(o));
    }
    AWC_RETURN_IF_ERROR(marked->Finish());
    seen_ = std::move(marked);
    trusted_.reset();
    return Status::OK();
  }

  // Leaves in `to_read` the objects of `chunk` the trust function does not
  // vouch for; the others join the trusted set.
  Status FilterTrusted(std::vector<ClosureObject>& chunk, int depth,
                       std::vector<ClosureObject>* to_read) {
    to_read->clear();
    if (!trust_) {
      to_read->swap(chunk);
      return Status::OK();
    }
    AWC_ASSIGN_OR_RETURN(std::vector<bool> trusted, trust_(chunk));
    if (trusted.size() != chunk.size()) {
      return Status::Internal("trust answered for " +
                              std::to_string(trusted.size()) + " of " +
                              std::to_string(chunk.size()) + " objects");
    }
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (!trusted[i]) {
        to_read->push_back(chunk[i]);
        continue;
      }
      if (!trusted_) {
        trusted_ = std::make_unique<Sorter<digest::RawDigest, DigestLess>>(
            files_.get(), budget_ / 16);
      }
      AWC_RETURN_IF_ERROR(trusted_->Add(chunk[i].sha256));
      ++report_.trusted;
      if (depth == 0) {
        seen_ = NewSpool();
        AWC_RETURN_IF_ERROR(seen_->Append(chunk[i]));
        AWC_RETURN_IF_ERROR(seen_->Finish());
      }
    }
    return Status::OK();
  }

  // Reads the objects of `queue_` at `depth` in batches; then settles the
  // entries their manifests name.
  Status Wave(int depth) {
    entries_ = std::make_unique<Sorter<EntryRecord, EntryByDigest>>(
        files_.get(), budget_ / 4);
    seq_ = 0;
    Problem bad_read;
    Status stopped;
    {
      AWC_ASSIGN_OR_RETURN(auto reader, queue_->NewReader());
      size_t batch_max = ReadBatchSize(store_);
      std::vector<ClosureObject> chunk, to_read, batch;
      bool more = true;
      while (more && stopped.ok() && !bad_read.found()) {
        chunk.clear();
        while (chunk.size() < kTrustChunk) {
          ClosureObject o;
          AWC_ASSIGN_OR_RETURN(more, reader->Next(&o));
          if (!more) break;
          chunk.push_back(o);
        }
        if (chunk.empty()) break;
        AWC_RETURN_IF_ERROR(FilterTrusted(chunk, depth, &to_read));
        size_t next = 0;
        while (next < to_read.size()) {
          batch.clear();
          uint64_t manifest_bytes = 0;
          while (next < to_read.size() && batch.size() < batch_max) {
            const ClosureObject& o = to_read[next];
            if (o.is_manifest) {
              uint64_t b = limits_.manifest_max_bytes;
              if (depth > 0) b = std::min(b, o.size);
              if (!batch.empty() && manifest_bytes + b > kBatchManifestBytes) {
                break;
              }
              manifest_bytes += b;
            }
            batch.push_back(o);
            ++next;
          }
          if (!first_batch_ && checkpoint_) AWC_RETURN_IF_ERROR(checkpoint_());
          first_batch_ = false;
          stopped = ReadBatch(batch, depth, &bad_read);
          if (!stopped.ok() || bad_read.found()) break;
        }
      }
    }
    queue_.reset();
    // Entries met before a bad object come first: their problems win.
    AWC_RETURN_IF_ERROR(Settle(depth));
    if (failed_) return Status::OK();
    if (bad_read.found()) {
      Fail(bad_read.verdict, bad_read.digest, std::move(bad_read.detail));
      report_.read_bad = true;
      report_.declared_size = bad_read.declared;
      return Status::OK();
    }
    return stopped;
  }

  // Reads `batch` at `depth` and collects the entries its manifests name.
  // A bad object is left in `bad_read` (the batch's first, in order).
  Status ReadBatch(const std::vector<ClosureObject>& batch, int depth,
                   Problem* bad_read) {
    size_t n = batch.size();
    std::vector<ObjectRead> reads(n);
    std::vector<std::string> digests(n);
    for (size_t i = 0; i < n; ++i) {
      digests[i] = batch[i].digest();
      reads[i].manifest = batch[i].is_manifest;
      reads[i].has_declared = depth != 0;
      reads[i].declared = batch[i].size;
    }
    ReadObjects(store_, tenant_id_, digests, reads, limits_.manifest_max_bytes,
                checkpoint_);
    report_.reads += n;

    for (size_t i = 0; i < n; ++i) {
      ObjectRead& r = reads[i];
      if (!IsJudged(r)) return r.status;
      std::string detail;
      Verdict v = CheckRead(r, digests[i], limits_.manifest_max_bytes, &detail);
      if (v != Verdict::kOk) {
        *bad_read = {0, v, digests[i], std::move(detail),
                     r.has_declared ? std::optional<uint64_t>(r.declared)
                                    : std::nullopt};
        return Status::OK();
      }
      if (depth == 0) {
        // The root: its size is what was read.
        ClosureObject root = batch[i];
        root.size = r.length;
        report_.root_size = r.length;
        seen_ = NewSpool();
        AWC_RETURN_IF_ERROR(seen_->Append(root));
        AWC_RETURN_IF_ERROR(seen_->Finish());
      }
      if (!r.manifest) continue;
      Result<Manifest> m = ParseManifest(r.buffer);
      std::string().swap(r.buffer);
      if (!m.ok()) {
        *bad_read = {0, Verdict::kMalformedManifest, digests[i],
                     m.status().message(), std::nullopt};
        return Status::OK();
      }
      AWC_RETURN_IF_ERROR(manifests_read_->Append(batch[i].sha256));
      for (const ManifestEntry& e : m->entries) {
        EntryRecord rec;
        digest::ParseDigest(e.digest, &rec.digest);  // checked by the parser
        rec.seq = seq_++;
        rec.size = e.size;
        rec.manifest = e.kind == ManifestEntry::Kind::kManifest;
        AWC_RETURN_IF_ERROR(entries_->Add(rec));
        AWC_RETURN_IF_ERROR(edges_->Append(
            {batch[i].sha256, rec.digest, rec.size, rec.manifest}));
      }
    }
    return Status::OK();
  }

  // Merges the entries met at `depth` (sorted by digest, then as met) with
  // `seen_`: an entry's digest is new, or known with a size and a kind. A
  // known blob named as a manifest is read again at the next depth; a new
  // one is read there as a manifest. Then the next depth's objects are put
  // back in the order their entries were met, counting new ones against the
  // object limit, up to the first problem.
  Status Settle(int depth) {
    AWC_ASSIGN_OR_RETURN(auto entries, entries_->Finish());
    AWC_ASSIGN_OR_RETURN(auto seen, seen_->NewReader());
    std::shared_ptr<Spool<ClosureObject>> next_seen = NewSpool();
    Sorter<NextRecord, NextBySeq> next(files_.get(), budget_ / 4);
    const bool too_deep = depth + 1 > limits_.max_depth;
    Problem first;
    auto note = [&first](uint64_t seq, Verdict v, const ClosureObject& o,
                         std::string detail) {
      if (seq < first.seq) {
        first = {seq, v, o.digest(), std::move(detail), std::nullopt};
      }
    };
    uint64_t bytes = 0, merged = 0;
    auto keep = [&](const ClosureObject& o) {
      bytes += o.size;
      return next_seen->Append(o);
    };
    ClosureObject s;
    EntryRecord e;
    AWC_ASSIGN_OR_RETURN(bool have_s, seen->Next(&s));
    AWC_ASSIGN_OR_RETURN(bool have_e, entries->Next(&e));
    while (have_e) {
      while (have_s && CompareDigests(s.sha256, e.digest) < 0) {
        AWC_RETURN_IF_ERROR(keep(s));
        AWC_ASSIGN_OR_RETURN(have_s, seen->Next(&s));
      }
      ClosureObject known;
      bool is_new = !(have_s && s.sha256 == e.digest);
      uint64_t first_seq = e.seq;
      if (is_new) {
        known.sha256 = e.digest;
        known.size = e.size;
        known.is_manifest = e.manifest;
        if (e.manifest && too_deep) {
          note(e.seq, Verdict::kDepthExceeded, known, DepthDetail());
        }
        AWC_ASSIGN_OR_RETURN(have_e, entries->Next(&e));
      } else {
        known = s;
        AWC_ASSIGN_OR_RETURN(have_s, seen->Next(&s));
      }
      while (have_e && e.digest == known.sha256) {
        if (e.size != known.size) {
          note(e.seq, Verdict::kSizeMismatch, known,
               "object is declared with sizes " + std::to_string(known.size) +
                   " and " + std::to_string(e.size));
        } else if (e.manifest && !known.is_manifest) {
          if (too_deep) {
            note(e.seq, Verdict::kDepthExceeded, known, DepthDetail());
          } else {
            known.is_manifest = true;
            if (!is_new) AWC_RETURN_IF_ERROR(next.Add({e.seq, known, false}));
          }
        }
        if (++merged % kCheckpointEntries == 0 && checkpoint_) {
          AWC_RETURN_IF_ERROR(checkpoint_());
        }
        AWC_ASSIGN_OR_RETURN(have_e, entries->Next(&e));
      }
      if (is_new) AWC_RETURN_IF_ERROR(next.Add({first_seq, known, true}));
      AWC_RETURN_IF_ERROR(keep(known));
    }
    while (have_s) {
      AWC_RETURN_IF_ERROR(keep(s));
      AWC_ASSIGN_OR_RETURN(have_s, seen->Next(&s));
    }
    AWC_RETURN_IF_ERROR(next_seen->Finish());
    entries.reset();
    entries_.reset();

    AWC_ASSIGN_OR_RETURN(auto in_order, next.Finish());
    std::shared_ptr<Spool<ClosureObject>> next_queue = NewSpool();
    uint64_t objects = seen_->size();
    NextRecord n;
    for (;;) {
      AWC_ASSIGN_OR_RETURN(bool more, in_order->Next(&n));
      if (!more || n.seq > first.seq) break;
      if (n.is_new) {
        if (objects >= limits_.max_objects) {
          Fail(Verdict::kTooManyObjects, n.object.digest(), ObjectsDetail());
          return Status::OK();
        }
        ++objects;
      }
      if (n.seq == first.seq) break;
      AWC_RETURN_IF_ERROR(next_queue->Append(n.object));
    }
    if (first.found()) {
      Fail(first.verdict, first.digest, std::move(first.detail));
      return Status::OK();
    }
    AWC_RETURN_IF_ERROR(next_queue->Finish());
    queue_ = std::move(next_queue);
    seen_ = std::move(next_seen);
    bytes_ = bytes;
    return Status::OK();
  }

  store::ObjectStore& store_;
  const std::string& tenant_id_;
  const ClosureLimits& limits_;
  const BetweenReadsFn& checkpoint_;
  const TrustFn& trust_;
  std::shared_ptr<SpillFiles> files_;
  size_t budget_;
  ClosureReport report_;
  std::shared_ptr<Spool<ClosureObject>> seen_;   // depths up to the current
  std::shared_ptr<Spool<ClosureObject>> queue_;  // the current depth
  std::unique_ptr<Sorter<EntryRecord, EntryByDigest>> entries_;
  std::unique_ptr<Sorter<digest::RawDigest, DigestLess>> trusted_;
  std::shared_ptr<Spool<digest::RawDigest>> manifests_read_;
  std::shared_ptr<Spool<ClosureEdge>> edges_;
  uint64_t seq_ = 0;
  uint64_t bytes_ = 0;
  bool first_batch_ = true;
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
                                  const BetweenReadsFn& checkpoint,
                                  const TrustFn& trust) {
  AWC_RETURN_IF_ERROR(store::MakeKey(tenant_id, root_digest).status());
  return Walker(store, tenant_id, limits, checkpoint, trust).Run(root_digest);
}

}  // namespace awc::cas
