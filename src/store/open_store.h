// OpenStore: the one place that knows every ObjectStore implementation and
// picks one by the scheme of a store URL; OpenInitializedStore, what the
// daemon and awcctl use, also wants the store marker (store_marker.h), and
// InitializeStore makes a store (`awcctl store init`).
#ifndef AWC_STORE_OPEN_STORE_H_
#define AWC_STORE_OPEN_STORE_H_

#include <memory>

#include "common/status.h"
#include "store/object_store.h"
#include "store/s3_options.h"
#include "store/store_url.h"

struct ev_loop;

namespace awc::store {

// Opens the store selected by `url`: memory://, file:// (the directory must
// exist) or s3:// with `s3` (ignored by the others). `loop` is the caller's
// event loop (S3 drives its transfers on it); it must outlive the store. A
// build without the S3 store refuses s3://. Opening does not check the
// store marker: callers that use the store do (store_marker.h).
Result<std::unique_ptr<ObjectStore>> OpenStore(const StoreUrl& url,
                                               const S3Options& s3,
                                               struct ev_loop* loop);

// OpenStore() and CheckStoreMarker(): the store, if it is an initialised
// awc store. A file:// root that does not exist is NotInitialized() too.
Result<std::unique_ptr<ObjectStore>> OpenInitializedStore(const StoreUrl& url,
                                                          const S3Options& s3,
                                                          struct ev_loop* loop);

// `awcctl store init`: creates the root directory of a file:// store
// (with its parents) if missing, opens the store and writes its marker
// unless it has one. True when the marker was written, false when the
// store was initialised already; memory:// needs nothing (false).
Result<bool> InitializeStore(const StoreUrl& url, const S3Options& s3,
                             struct ev_loop* loop);

}  // namespace awc::store

#endif  // AWC_STORE_OPEN_STORE_H_
