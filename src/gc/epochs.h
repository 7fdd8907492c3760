// What GC did last, per tenant, for awcctl stats.
#ifndef AWC_GC_EPOCHS_H_
#define AWC_GC_EPOCHS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "db/pg.h"

namespace awc::gc {

struct EpochSummary {
  std::string tenant_id;
  int64_t epoch_id = 0;
  std::string state;  // PLANNED, DELETING, COMPLETED, ABORTED, REFUSED
  bool dry_run = false;
  int64_t planned = 0;
  int64_t deleted = 0;
  int64_t kept = 0;
  std::string created_at;  // ISO 8601 UTC
  // Seconds since it finished; nullopt while it is open.
  std::optional<double> finished_secs_ago;
};

// The latest epoch of every tenant that had one, by tenant.
Result<std::vector<EpochSummary>> LastEpochs(db::PgConn& conn);

}  // namespace awc::gc

#endif  // AWC_GC_EPOCHS_H_
