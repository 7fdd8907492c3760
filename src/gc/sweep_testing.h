// Test-only seams of a GC epoch (gc/sweep.h): the points where tests
// interrupt a sweep (to simulate a crash) or interfere (to inject a live
// reference), and a RunSweep that takes them.
#ifndef AWC_GC_SWEEP_TESTING_H_
#define AWC_GC_SWEEP_TESTING_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "db/pg.h"
#include "gc/sweep.h"
#include "store/object_store.h"

namespace awc::gc {

// Returning an error from a hook stops the sweep there with that error, as
// a crash would.
struct SweepHooks {
  std::function<Status(int64_t epoch)> after_plan;
  std::function<Status(int64_t epoch)> after_mark;
  std::function<Status(int64_t epoch)> before_store_delete;
  std::function<Status(int64_t epoch)> after_store_delete;
  std::function<Status(int64_t epoch)> before_canary_check;
  DeletedFn deleted;
};

// RunSweep with `hooks` called at their points.
Result<SweepReport> RunSweepWithHooks(db::PgConn& conn,
                                      store::ObjectStore& store,
                                      const std::string& tenant_id,
                                      const SweepOptions& options,
                                      const std::function<Status()>& checkpoint,
                                      const SweepHooks& hooks);

}  // namespace awc::gc

#endif  // AWC_GC_SWEEP_TESTING_H_
