// memory:// — objects in a map inside this process. Each worker process has
// its own; nothing survives the process. For tests and for jobs that read
// no objects.
#ifndef AWC_STORE_MEMORY_STORE_H_
#define AWC_STORE_MEMORY_STORE_H_

#include <memory>

#include "store/object_store.h"

namespace awc::store {

std::unique_ptr<ObjectStore> NewMemoryStore();

}  // namespace awc::store

#endif  // AWC_STORE_MEMORY_STORE_H_
