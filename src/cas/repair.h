// Copying an object back into the store from a repair store (a replica
// bucket, another region, a backup mount), never trusting the repair store:
// only bytes that hash to the object's digest, and have its size when the
// size is known, reach the primary store (docs/store.md, "Repair").
#ifndef AWC_CAS_REPAIR_H_
#define AWC_CAS_REPAIR_H_

#include <cstdint>
#include <optional>

#include "cas/spill.h"
#include "common/status.h"
#include "store/object_store.h"

namespace awc::cas {

enum class RepairCopy {
  kRepaired,  // the primary store holds the object again
  kAbsent,    // the repair store does not have it
  kCorrupt,   // the repair store's bytes are not the object (wrong digest
              // or size): nothing was written
  kBlocked,   // the primary store holds something at the key that it does
              // not replace (file://: a directory): nothing was written
};

// "repaired", "absent", "corrupt", "blocked".
const char* RepairCopyName(RepairCopy r);

// Streams `key` from `repair` into a scratch file of `spill` while hashing
// and counting it; when the bytes are the object's (its digest, and `size`
// when given) stores the file in `primary` with PutFile (atomic, and
// verified again as it is read). Reads stop at one chunk past `size`. The
// scratch file is removed. Errors of either store come back as Status
// (kTransient: try again later); kCorruption from the repair store (what
// it holds at the key cannot be an object) is kCorrupt, and
// kFailedPrecondition from the primary's PutFile (what it holds at the key
// is not replaced) kBlocked.
Result<RepairCopy> CopyVerified(store::ObjectStore& repair,
                                store::ObjectStore& primary,
                                const store::ObjectKey& key,
                                std::optional<uint64_t> size,
                                const SpillOptions& spill);

}  // namespace awc::cas

#endif  // AWC_CAS_REPAIR_H_
