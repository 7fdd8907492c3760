// OpenStore: the one place that knows every ObjectStore implementation and
// picks one by the scheme of a store URL.
#ifndef AWC_STORE_OPEN_STORE_H_
#define AWC_STORE_OPEN_STORE_H_

#include <memory>

#include "common/status.h"
#include "store/object_store.h"
#include "store/s3_options.h"
#include "store/store_url.h"

struct ev_loop;

namespace awc::store {

// Opens the store selected by `url`: memory://, file:// (the directory is
// created if missing) or s3:// with `s3` (ignored by the others). `loop` is
// the caller's event loop (S3 drives its transfers on it); it must outlive
// the store. A build without the S3 store refuses s3://.
Result<std::unique_ptr<ObjectStore>> OpenStore(const StoreUrl& url,
                                               const S3Options& s3,
                                               struct ev_loop* loop);

}  // namespace awc::store

#endif  // AWC_STORE_OPEN_STORE_H_
