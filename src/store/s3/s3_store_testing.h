// Test-only read-backs of an S3 store (store/s3/s3_store.h), for the tests
// and the benchmarks that check how requests were made.
#ifndef AWC_STORE_S3_S3_STORE_TESTING_H_
#define AWC_STORE_S3_S3_STORE_TESTING_H_

#include <cstdint>

#include "store/object_store.h"

namespace awc::store {

// Counters of an S3 store since it was opened.
struct S3Stats {
  int max_in_flight = 0;           // most transfers running at once
  int64_t transfers = 0;           // requests started
  int64_t connections_opened = 0;  // TCP connections made (not reused)
};

// `store` must come from NewS3Store.
S3Stats GetS3Stats(const ObjectStore& store);

}  // namespace awc::store

#endif  // AWC_STORE_S3_S3_STORE_TESTING_H_
