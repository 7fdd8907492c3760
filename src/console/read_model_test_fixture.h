// A ReadModel for the console's unit tests: returns what the test put in
// its fields, records what it was asked, and fails every call while
// `failure` is set.
#ifndef AWC_CONSOLE_READ_MODEL_TEST_FIXTURE_H_
#define AWC_CONSOLE_READ_MODEL_TEST_FIXTURE_H_

#include <string>
#include <vector>

#include "console/read_model.h"

namespace awc::console {

class FakeReadModel : public ReadModel {
 public:
  Result<Overview> ReadOverview() override {
    calls.push_back("overview");
    if (!failure.ok()) return failure;
    return overview;
  }
  Result<Page<queue::JobRow>> ReadJobs(const JobFilter& f,
                                       const PageRequest& p) override {
    calls.push_back("jobs");
    job_filter = f;
    page_request = p;
    if (!failure.ok()) return failure;
    return jobs;
  }
  Result<std::optional<JobView>> ReadJob(int64_t id) override {
    calls.push_back("job " + std::to_string(id));
    if (!failure.ok()) return failure;
    if (id != job.job.row.id) return std::optional<JobView>();
    return std::optional<JobView>(job);
  }
  Result<DeadLetterView> ReadDeadLetters(const JobFilter& f,
                                         int limit) override {
    calls.push_back("dead " + std::to_string(limit));
    job_filter = f;
    if (!failure.ok()) return failure;
    return dead;
  }
  Result<Page<SnapshotRow>> ReadSnapshots(const SnapshotFilter& f,
                                          const PageRequest& p) override {
    calls.push_back("snapshots");
    snapshot_filter = f;
    page_request = p;
    if (!failure.ok()) return failure;
    return snapshots;
  }
  Result<std::optional<SnapshotView>> ReadSnapshot(int64_t id) override {
    calls.push_back("snapshot " + std::to_string(id));
    if (!failure.ok()) return failure;
    if (id != snapshot.snapshot.id) return std::optional<SnapshotView>();
    return std::optional<SnapshotView>(snapshot);
  }
  Result<GcView> ReadGc(const std::string& tenant,
                        const PageRequest& p) override {
    calls.push_back("gc " + tenant);
    page_request = p;
    if (!failure.ok()) return failure;
    return gc;
  }
  Result<Page<AuditRow>> ReadAudit(const AuditFilter& f,
                                   const PageRequest& p) override {
    calls.push_back("audit");
    audit_filter = f;
    page_request = p;
    if (!failure.ok()) return failure;
    return audit;
  }

  Status failure;
  Overview overview;
  Page<queue::JobRow> jobs;
  JobView job;
  DeadLetterView dead;
  Page<SnapshotRow> snapshots;
  SnapshotView snapshot;
  GcView gc;
  Page<AuditRow> audit;

  std::vector<std::string> calls;
  JobFilter job_filter;
  SnapshotFilter snapshot_filter;
  AuditFilter audit_filter;
  PageRequest page_request;
};

}  // namespace awc::console

#endif  // AWC_CONSOLE_READ_MODEL_TEST_FIXTURE_H_
