// A store that shows it is still the store before it says that an object
// is missing: the store marker (store_marker.h) is checked at startup, but
// a volume can be unmounted under a running fleet (an empty mount point),
// or a bucket emptied, and then every object looks missing. What a job
// concludes from "missing" (a snapshot FAILED or DEGRADED, an object marked
// damaged, a repair that found nothing) would then be false
// (docs/store.md, "Store marker").
//
// Contract (each worker wraps the store and the repair store it opens):
//  - A kNotFound from Get, Head, GetMany or HeadMany stands only once the
//    marker was read, valid, after it: otherwise the call's result is
//    kTransient, saying that the store is not there, and the job retries.
//    A GetMany or HeadMany reads the marker at most once, after all its
//    requests, and only when one of them found nothing; those requests'
//    `done` are called then, after the others'.
//  - A List that completes is followed by a read of the marker; without
//    one its result is kTransient (an empty listing of an unmounted volume
//    says nothing about the objects).
//  - Put, PutFile and DeleteMany read the marker first, and change nothing
//    without one: nothing is written into an empty mount point, and no
//    deletion "succeeds" because the object is not where the store was.
//  - Everything else is the inner store's (ForwardingStore).
#ifndef AWC_STORE_MARKER_CHECKED_STORE_H_
#define AWC_STORE_MARKER_CHECKED_STORE_H_

#include <memory>
#include <string>

#include "store/object_store.h"

namespace awc::store {

// `url` names the store in messages (redacted as FormatStoreUrl does), and
// `setting` the setting it comes from (AWC_CAS_URL, AWC_CAS_REPAIR_URL).
std::unique_ptr<ObjectStore> NewMarkerCheckedStore(
    std::unique_ptr<ObjectStore> inner, std::string url, std::string setting);

}  // namespace awc::store

#endif  // AWC_STORE_MARKER_CHECKED_STORE_H_
