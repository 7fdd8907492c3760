#include "cas/object_read.h"

#include <algorithm>
#include <utility>

namespace awc::cas {
namespace {

// A real store's latency has a long tail: a batch ends when its slowest
// read does, so it carries several reads per unit of parallelism.
constexpr size_t kReadsPerSlot = 16;
constexpr size_t kMinBatch = 16;
constexpr size_t kMaxBatch = 1024;
// Inside one object's read, the checkpoint runs after each this many bytes
// (a lease must not run out while one large object streams).
constexpr uint64_t kCheckpointBytes = 1024 * 1024;

}  // namespace

size_t ReadBatchSize(const store::ObjectStore& store) {
  size_t n =
      kReadsPerSlot * static_cast<size_t>(std::max(store.parallelism(), 1));
  return std::clamp(n, kMinBatch, kMaxBatch);
}

void ReadObjects(store::ObjectStore& store, const std::string& tenant_id,
                 const std::vector<std::string>& digests,
                 std::vector<ObjectRead>& reads, uint64_t manifest_max,
                 const BetweenReadsFn& checkpoint) {
  std::vector<store::ObjectStore::GetRequest> requests;
  requests.reserve(digests.size());
  for (size_t i = 0; i < digests.size(); ++i) {
    ObjectRead* r = &reads[i];
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
  store.GetMany(requests);
}

bool IsJudged(const ObjectRead& r) {
  return r.status.ok() || r.status.IsNotFound() || r.too_large || r.longer ||
         r.status.IsCorruption();
}

Verdict CheckRead(ObjectRead& r, std::string_view digest, uint64_t manifest_max,
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

}  // namespace awc::cas
