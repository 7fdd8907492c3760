// A store that only reads: the repair store (AWC_CAS_REPAIR_URL) is a
// replica, a backup or another region's bucket, and awc-worker never
// writes to it or deletes from it (docs/store.md, "Repair").
//
// Contract: Get, GetMany, Head, HeadMany, List, ReadMarker and
// parallelism() are the inner store's; Put, PutFile, DeleteMany and
// WriteMarker change nothing and return kFailedPrecondition naming the
// store as read-only.
#ifndef AWC_STORE_READ_ONLY_STORE_H_
#define AWC_STORE_READ_ONLY_STORE_H_

#include <memory>

#include "store/object_store.h"

namespace awc::store {

std::unique_ptr<ObjectStore> NewReadOnlyStore(
    std::unique_ptr<ObjectStore> inner);

}  // namespace awc::store

#endif  // AWC_STORE_READ_ONLY_STORE_H_
