// s3://bucket[/prefix] — an S3-compatible store over HTTP(S), signed with
// AWS Signature V4 by libcurl (CURLOPT_AWS_SIGV4).
//
// Transfers run on libcurl's multi-socket API driven by the caller's libev
// loop, up to S3Options::max_concurrency at once (GetMany, HeadMany). GET
// streams into the sink; HEAD, PUT (from memory or a file), DeleteObjects
// (at most 1000 keys per request, Content-MD5 set) and ListObjectsV2
// (paginated). Path-style or virtual-host addressing
// (S3Options::force_path_style). Errors: 404 / NoSuchKey -> kNotFound; 5xx,
// 429, SlowDown, timeouts and connection failures -> kTransient; 403,
// NoSuchBucket and other 4xx -> permanent (kFailedPrecondition).
// Credentials never appear in errors.
//
// Contract details:
//  - Every call blocks by running the loop (ev_run EVRUN_ONCE) until its
//    transfers are done, so other watchers of the loop may run meanwhile.
//    A pending ev_break() of the loop does not survive such a nested run:
//    stop loops with a flag that is checked between runs.
//  - Sinks run inside libcurl callbacks and must not call the store;
//    GetMany's and HeadMany's `done` callbacks and List's `each` run
//    outside them and may.
//  - Head() of an absent object in a missing bucket is kFailedPrecondition,
//    not kNotFound: a 404 to HEAD carries no error code, so the first one
//    is checked against a HEAD of the bucket.
//  - S3Options::timeout_ms is a stall timeout: a request that moves less than
//    1 KiB/s for that long (rounded up to whole seconds) is abandoned as a
//    transient error, however large its object; the connect timeout is the
//    smaller of it and 10 s.
//  - Connections and easy handles are reused across calls. Open the store
//    in the process that uses it (after fork(), not before).
//  - Virtual-host addressing puts the bucket in the host name: over HTTPS
//    a bucket name with dots needs path-style (the certificate will not
//    match).
#ifndef AWC_STORE_S3_S3_STORE_H_
#define AWC_STORE_S3_S3_STORE_H_

#include <cstdint>
#include <memory>

#include "common/env.h"
#include "store/object_store.h"
#include "store/s3_options.h"
#include "store/store_url.h"

struct ev_loop;

namespace awc::store {

// `url` is an s3:// URL and `options` hold checked values (s3_options.h);
// only an endpoint that does not parse is refused here. PutFile reads its
// files through `env`.
Result<std::unique_ptr<ObjectStore>> NewS3Store(const StoreUrl& url,
                                                const S3Options& options,
                                                struct ev_loop* loop,
                                                Env* env = Env::Default());

}  // namespace awc::store

#endif  // AWC_STORE_S3_S3_STORE_H_
