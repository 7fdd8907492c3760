// PgReadModel: the console's ReadModel over a PostgreSQL database, through
// one PgSession. The SQL is in console_sql.h, or is that of the modules
// whose awcctl verbs show the same data.
#ifndef AWC_CONSOLE_PG_READ_MODEL_H_
#define AWC_CONSOLE_PG_READ_MODEL_H_

#include <memory>
#include <string>

#include "console/pg_session.h"
#include "console/read_model.h"

namespace awc::console {

class PgReadModel : public ReadModel {
 public:
  explicit PgReadModel(std::unique_ptr<PgSession> session);

  Result<Overview> ReadOverview() override;
  Result<Page<queue::JobRow>> ReadJobs(const JobFilter& filter,
                                       const PageRequest& page) override;
  Result<std::optional<JobView>> ReadJob(int64_t id) override;
  Result<DeadLetterView> ReadDeadLetters(const JobFilter& filter,
                                         int limit) override;
  Result<Page<SnapshotRow>> ReadSnapshots(const SnapshotFilter& filter,
                                          const PageRequest& page) override;
  Result<std::optional<SnapshotView>> ReadSnapshot(int64_t id) override;
  Result<GcView> ReadGc(const std::string& tenant,
                        const PageRequest& page) override;
  Result<Page<AuditRow>> ReadAudit(const AuditFilter& filter,
                                   const PageRequest& page) override;

 private:
  std::unique_ptr<PgSession> session_;
};

}  // namespace awc::console

#endif  // AWC_CONSOLE_PG_READ_MODEL_H_
