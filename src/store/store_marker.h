// The store marker: a small JSON document, ".awc-store", that `awcctl store
// init` writes at the root of a file:// store or under the prefix of an
// s3:// one (ObjectStore::WriteMarker). Only a store that has it is used:
// a typo in the store's URL, an unmounted volume or the wrong bucket is then an
// error at startup, instead of an empty store in which every object is
// "missing" and every scrub degrades a snapshot. memory:// needs none.
//
// Content: {"format":"awc-store","version":1}. Another version, or anything
// that is not such an object, is refused; other keys are ignored.
#ifndef AWC_STORE_STORE_MARKER_H_
#define AWC_STORE_STORE_MARKER_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "store/object_store.h"

namespace awc::store {

// The format version this build writes and reads.
inline constexpr int kStoreFormatVersion = 1;

// The marker this build writes.
std::string StoreMarkerContent();

// The error for a store that is not initialised, `why` saying what was
// found: kFailedPrecondition "<url> is not an initialised awc store (<why>);
// check the URL, or create the store with "awcctl store init <url>"". It
// names no setting: the caller adds the one that named the store
// (AWC_CAS_URL, AWC_CAS_REPAIR_URL).
Status NotInitialized(const std::string& url, std::string_view why);

// OK when `store` (at `url`, for messages) has a valid marker, or is a
// memory:// store. Without one: NotInitialized(). A marker of another
// version, or a malformed one: kFailedPrecondition saying so. An error
// reading it keeps its code (a transient one means "could not tell") and
// gets the URL as context.
Status CheckStoreMarker(ObjectStore& store, const std::string& url);

// Writes the marker unless the store has one; true when it wrote it. A
// marker already there is checked as CheckStoreMarker does, and left as it
// is.
Result<bool> WriteStoreMarker(ObjectStore& store, const std::string& url);

}  // namespace awc::store

#endif  // AWC_STORE_STORE_MARKER_H_
