// What the console shows, and the interface it reads it through
// (docs/console.md, "Console"). PgReadModel (pg_read_model.h) reads
// a PostgreSQL database; the page renderers and the router see only these
// structs, so they are tested without one.
//
// Contract of a ReadModel: every call reads and never writes; a call
// returns kInvalidArgument for a filter it cannot apply, and any other
// error means the database could not answer (the router shows the error
// page and the next call tries again). Times are "YYYY-MM-DDTHH:MM:SSZ"
// (UTC), "" when NULL; `now` fields are the database's clock.
#ifndef AWC_CONSOLE_READ_MODEL_H_
#define AWC_CONSOLE_READ_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog_stats.h"
#include "common/status.h"
#include "fleet/id_clash.h"
#include "fleet/workers.h"
#include "gc/epochs.h"
#include "queue/admin.h"
#include "queue/horizon.h"
#include "queue/kind_settings.h"
#include "queue/queue_stats.h"
#include "scheduler/schedule_admin.h"

namespace awc::console {

// The database's clock, read once per page.
struct Clock {
  double now = 0;  // seconds since the epoch
  std::string now_iso;
};

// The queue of one kind. Finished jobs are many and counting them all reads
// the whole history, and a backlog of queued ones can be as long: ready,
// scheduled and COMPLETED jobs are each counted up to kJobCountCap, and a
// count that reached it is a lower bound.
inline constexpr int64_t kJobCountCap = 1000;
struct KindDepth {
  std::string kind;
  // PENDING and ready: their run_at has come and they were inserted
  // (AWC_QUEUE_READY_SINCE in queue/queue_sql.h). At most kJobCountCap.
  int64_t ready = 0;
  int64_t scheduled = 0;  // PENDING, not ready yet; at most kJobCountCap
  int64_t running = 0;
  int64_t failed = 0;
  int64_t cancelled = 0;
  int64_t completed = 0;  // at most kJobCountCap
  // Seconds the oldest ready job has waited since it became ready, as
  // awcctl stats counts them; nullopt when none.
  std::optional<double> oldest_ready_secs;
};

// The scheduler's lease and the schedules (scheduler/schedule_admin.h).
struct SchedulerView {
  std::optional<scheduler::LeaseRow> leader;  // nullopt: no scheduler led yet
  std::vector<scheduler::ScheduleRow> schedules;
};

// Snapshots are many: each state is counted up to kSnapshotCap.
inline constexpr int64_t kSnapshotCap = 10000;

struct Overview {
  Clock clock;
  // The planner's row estimate of awc.jobs as of its last ANALYZE; none
  // before the first.
  std::optional<int64_t> jobs_estimate;
  std::vector<KindDepth> queue;
  // The kinds whose jobs no worker claims (docs/queue.md, "Pausing a
  // kind"), by kind.
  std::vector<queue::PausedKind> paused_kinds;
  // What holds the database's MVCC horizon back (docs/queue.md, "The
  // horizon").
  queue::Horizon horizon;
  std::vector<queue::ReasonCount> dead_by_reason;
  std::vector<fleet::WorkerRow> workers;
  // Worker ids in use on more than one host (docs/observability.md,
  // "Worker ids on more than one host"), by id.
  std::vector<fleet::IdClash> id_clashes;
  SchedulerView scheduler;
  std::vector<catalog::StateCount> snapshots;  // at most kSnapshotCap each
  std::vector<catalog::StateCount> workspaces;
  std::vector<gc::EpochSummary> epochs;
};

// A page of a listing, newest first: rows with ids below `before`, or
// (when `after` is set) the rows just above `after`.
struct PageRequest {
  std::optional<int64_t> before;
  std::optional<int64_t> after;
  int limit = 50;
};

template <typename Row>
struct Page {
  Clock clock;
  std::vector<Row> rows;  // newest first
  bool older = false;     // rows older than the last exist
  bool newer = false;     // rows newer than the first exist
};

struct JobFilter {
  std::string state;   // "" = any; one of the five job states
  std::string kind;    // "" = any
  std::string reason;  // "" = any; a dead reason
};

struct JobView {
  Clock clock;
  queue::JobDetail job;
};

struct DeadLetterView {
  Clock clock;
  std::vector<queue::ReasonCount> by_reason;
  std::vector<queue::ReasonCount> by_kind;  // `reason` holds the kind
  int64_t matching = 0;                     // dead letters the filter selects
  std::vector<queue::JobRow> newest;        // the newest of them
};

struct SnapshotFilter {
  std::string tenant;  // "" = any
  std::string state;   // "" = any; one of the five snapshot states
};

struct SnapshotRow {
  int64_t id = 0;
  std::string tenant_id;
  int64_t workspace_id = 0;  // 0 when none
  std::string state;
  bool pinned = false;
  std::string root_digest;
  std::string created_at;
  std::string validated_at;
  std::string scrubbed_at;
  std::string released_at;
  std::optional<int64_t> object_count;
  std::optional<int64_t> byte_count;
  std::string failure_code;    // "" when none
  std::string failure_digest;  // "" when none
  std::string failure;         // the failure record, JSON text, or ""
};

struct AuditRow {
  int64_t id = 0;
  std::string tenant_id;  // "" when none
  std::string event;
  std::string subject;
  std::string data;  // JSON text
  std::string created_at;
};

struct SnapshotView {
  Clock clock;
  SnapshotRow snapshot;
  std::vector<AuditRow> history;  // its audit events, newest first
};

struct EpochRow {
  int64_t id = 0;
  std::string tenant_id;
  std::string state;
  bool dry_run = false;
  int64_t planned = 0;
  int64_t planned_bytes = 0;
  int64_t deleted = 0;
  int64_t deleted_bytes = 0;
  int64_t kept = 0;
  bool canary_verified = false;
  std::string reason;
  int64_t job_id = 0;  // 0 when none
  std::string created_at;
  std::string finished_at;
};

struct GcLockRow {
  std::string tenant_id;
  std::string holder;
  std::string acquired_at;
  std::string expires_at;
  bool expired = false;
};

struct GcView {
  Page<EpochRow> epochs;
  std::vector<GcLockRow> locks;
};

struct AuditFilter {
  std::string event;    // "" = any
  std::string tenant;   // "" = any
  std::string subject;  // "" = any
};

class ReadModel {
 public:
  virtual ~ReadModel() = default;

  virtual Result<Overview> ReadOverview() = 0;
  virtual Result<Page<queue::JobRow>> ReadJobs(const JobFilter& filter,
                                               const PageRequest& page) = 0;
  // nullopt when there is no such job.
  virtual Result<std::optional<JobView>> ReadJob(int64_t id) = 0;
  virtual Result<DeadLetterView> ReadDeadLetters(const JobFilter& filter,
                                                 int limit) = 0;
  virtual Result<Page<SnapshotRow>> ReadSnapshots(const SnapshotFilter& filter,
                                                  const PageRequest& page) = 0;
  virtual Result<std::optional<SnapshotView>> ReadSnapshot(int64_t id) = 0;
  virtual Result<GcView> ReadGc(const std::string& tenant,
                                const PageRequest& page) = 0;
  virtual Result<Page<AuditRow>> ReadAudit(const AuditFilter& filter,
                                           const PageRequest& page) = 0;
};

}  // namespace awc::console

#endif  // AWC_CONSOLE_READ_MODEL_H_
