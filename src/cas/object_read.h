// One object's read from the store, checked against its digest and the
// size its entry declares: the step WalkClosure and VerifyObjects share
// (cas/closure.h states what they promise). Internal to cas/.
//
// Contract:
//  - ReadBatchSize(store) is how many reads one GetMany carries: 16 per
//    unit of the store's parallelism, at least 16 and at most 1024. A batch
//    ends when its slowest read does, so more reads per batch wait less on
//    one slow response; a blob read buffers nothing, so a batch of them
//    costs little memory.
//  - ReadObjects() reads every digest with one GetMany; each read's sink
//    hashes and counts the bytes into its ObjectRead. A read with a declared
//    size stops as soon as it has more bytes than that (`longer`), since an
//    object may never end; a manifest's bytes are kept, up to `manifest_max`
//    (beyond it, `too_large` and the read stops). `checkpoint` runs after each
//    MiB of one object; its error stops the read.
//  - IsJudged(read) says whether CheckRead() gives the read's verdict;
//    otherwise its status is a store error (kTransient: retry later) or the
//    checkpoint's, and the caller returns it.
//  - CheckRead() finishes the hash and gives kOk or the verdict, with
//    `detail` saying why, in this order: manifest too large, missing,
//    longer than declared, not an object (kCorruption from the store),
//    digest mismatch, size mismatch.
#ifndef AWC_CAS_OBJECT_READ_H_
#define AWC_CAS_OBJECT_READ_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cas/closure.h"
#include "common/status.h"
#include "digest/sha256.h"
#include "store/object_store.h"

namespace awc::cas {

struct ObjectRead {
  digest::Sha256 hash;
  uint64_t length = 0;
  uint64_t unchecked = 0;  // bytes since the last checkpoint in this read
  bool manifest = false;
  bool has_declared = false;  // false for the root only
  uint64_t declared = 0;
  std::string buffer;      // a manifest's bytes
  bool longer = false;     // more than declared: the sink stopped the read
  bool too_large = false;  // the sink aborted the read
  Status status = Status::Internal("the store did not complete the read");
};

size_t ReadBatchSize(const store::ObjectStore& store);

// `reads` holds one ObjectRead per digest, its declared size and kind set.
void ReadObjects(store::ObjectStore& store, const std::string& tenant_id,
                 const std::vector<std::string>& digests,
                 std::vector<ObjectRead>& reads, uint64_t manifest_max,
                 const BetweenReadsFn& checkpoint);

bool IsJudged(const ObjectRead& read);

Verdict CheckRead(ObjectRead& read, std::string_view digest,
                  uint64_t manifest_max, std::string* detail);

}  // namespace awc::cas

#endif  // AWC_CAS_OBJECT_READ_H_
