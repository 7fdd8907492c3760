#include "scheduler/planners.h"

#include <algorithm>

#include "handlers/gc_sweep.h"
#include "handlers/snapshot_retain.h"
#include "handlers/snapshot_scrub.h"
#include "handlers/snapshot_validate.h"
#include "handlers/store_reconcile.h"
#include "handlers/workspace_expire.h"
#include "scheduler/scheduler_sql.h"

namespace awc::scheduler {
namespace {

constexpr BuiltinSchedule kBuiltins[] = {
    {"gc", "@every 6h", handlers::kGcSweepKind},
    {"expire", "@every 1m", handlers::kWorkspaceExpireKind},
    {"retain", "@every 10m", handlers::kSnapshotRetainKind},
    {"scrub", "@every 1h", handlers::kSnapshotScrubKind},
    {"validate", "@every 5m", handlers::kSnapshotValidateKind},
    {"reconcile", "@daily", handlers::kStoreReconcileKind},
    {kPrune, "@every 1h", ""},
};

// The statement of built-in planner `name`, nullptr for prune or an unknown
// name.
constexpr const char* StatementOf(std::string_view name) {
  if (name == "gc") return sql::kPlanGc;
  if (name == "expire") return sql::kPlanExpire;
  if (name == "retain") return sql::kPlanRetain;
  if (name == "scrub") return sql::kPlanScrub;
  if (name == "validate") return sql::kPlanValidate;
  if (name == "reconcile") return sql::kPlanReconcile;
  return nullptr;
}

// Whether `statement` holds the SQL literal 'kind'.
constexpr bool QuotesKind(std::string_view statement, std::string_view kind) {
  for (size_t at = statement.find(kind); at != std::string_view::npos;
       at = statement.find(kind, at + 1)) {
    if (at > 0 && statement[at - 1] == '\'' &&
        at + kind.size() < statement.size() &&
        statement[at + kind.size()] == '\'') {
      return true;
    }
  }
  return false;
}

// The planners' statements spell the kind they enqueue as a literal (it is
// part of the statement's text, like the states; the validate planner's
// must match the predicate of jobs_validate_live_idx,
// migrations/0004_scheduler.sql). Each must be the kind its schedule names,
// which is its handler's (handlers/<kind>.h).
constexpr bool EveryPlannerEnqueuesItsKind() {
  for (const BuiltinSchedule& b : kBuiltins) {
    if (std::string_view(b.name) == kPrune) continue;
    const char* statement = StatementOf(b.name);
    if (statement == nullptr || !QuotesKind(statement, b.kind)) return false;
  }
  return true;
}
static_assert(EveryPlannerEnqueuesItsKind(),
              "a planner's statement enqueues another kind than its "
              "schedule's, or has no statement");

PlanResult FromRow(const db::PgResult& r) {
  return {r.GetInt(0, 0), r.GetInt(0, 1), std::nullopt};
}

// Deletes with `statement` ($1 retention, $2 batch) batch after batch until
// a batch is short; adds what it deleted to `*count`. False when the
// checkpoint asked to stop.
Result<bool> PruneAll(db::PgConn& conn, const char* statement,
                      int64_t retention_secs,
                      const std::function<Status()>& fence,
                      const std::function<Result<bool>()>& checkpoint,
                      int64_t* count) {
  db::Params params = {std::to_string(retention_secs),
                       std::to_string(kPruneBatch)};
  for (;;) {
    int64_t deleted = 0;
    AWC_RETURN_IF_ERROR(db::InTransaction(conn, [&]() -> Status {
      AWC_RETURN_IF_ERROR(fence());
      AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(statement, params));
      deleted = r.Affected();
      return Status::OK();
    }));
    *count += deleted;
    if (deleted < kPruneBatch) return true;
    AWC_ASSIGN_OR_RETURN(bool go_on, checkpoint());
    if (!go_on) return false;
  }
}

}  // namespace

std::span<const BuiltinSchedule> BuiltinSchedules() { return kBuiltins; }

bool IsBuiltinPlanner(std::string_view name) {
  for (const BuiltinSchedule& b : kBuiltins) {
    if (name == b.name) return true;
  }
  return false;
}

Result<const char*> PlannerStatement(std::string_view name) {
  if (const char* statement = StatementOf(name)) return statement;
  return Status::InvalidArgument("no built-in planner named \"" +
                                 std::string(name) + "\"");
}

Result<PlanResult> RunPlanner(db::PgConn& conn, std::string_view name,
                              const SchedulerOptions& options) {
  AWC_ASSIGN_OR_RETURN(const char* statement, PlannerStatement(name));
  std::string limit = std::to_string(kMaxJobsPerRun);
  db::Params params;
  if (name == "expire") {
    params = {std::to_string(options.retention_grace_secs), limit};
  } else if (name == "retain") {
    params = {limit};
  } else if (name == "scrub") {
    params = {std::to_string(static_cast<int64_t>(
                  static_cast<double>(options.scrub_interval_secs) *
                  kScrubPlanShare)),
              std::to_string(options.scrub_max_per_run)};
  } else if (name == "validate") {
    params = {std::to_string(kValidateMinAgeSecs), limit};
  }
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(statement, params));
  PlanResult out = FromRow(r);
  if (name == "scrub") {
    AWC_ASSIGN_OR_RETURN(out.coverage, SampleScrubCoverage(conn, options));
  }
  return out;
}

Result<ScrubCoverage> SampleScrubCoverage(db::PgConn& conn,
                                          const SchedulerOptions& options) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r, conn.Exec(sql::kScrubCoverage,
                                {std::to_string(options.scrub_interval_secs)}));
  ScrubCoverage c;
  c.promise_secs = options.scrub_interval_secs;
  c.objects = r.GetInt(0, 0);
  c.verified = r.GetInt(0, 1);
  c.bytes = r.GetInt(0, 2);
  c.oldest_unverified_secs = r.GetDouble(0, 3);
  c.hosts = r.GetInt(0, 4);
  c.required_bytes_per_sec =
      options.scrub_interval_secs > 0
          ? static_cast<double>(c.bytes) /
                static_cast<double>(options.scrub_interval_secs)
          : 0;
  c.budget_bytes_per_sec = options.scrub_budget_bytes_per_sec *
                           static_cast<double>(std::max<int64_t>(c.hosts, 1));
  return c;
}

Result<PlanResult> EnqueueScheduled(db::PgConn& conn, const std::string& name,
                                    const std::string& kind,
                                    const std::string& payload) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kEnqueueScheduled, {kind, payload, "schedule:" + name}));
  return PlanResult{1, r.rows(), std::nullopt};
}

Result<PruneResult> Prune(db::PgConn& conn, const SchedulerOptions& options,
                          const std::function<Status()>& fence,
                          const std::function<Result<bool>()>& checkpoint) {
  PruneResult out;
  struct Part {
    const char* statement;
    int64_t retention;
    int64_t* count;
  };
  const Part parts[] = {
      {sql::kPruneJobs, options.job_retention_secs, &out.jobs},
      {sql::kPruneDeadLetters, options.dead_letter_retention_secs,
       &out.dead_letters},
      // 0 keeps audit events for ever.
      {options.audit_retention_secs > 0 ? sql::kPruneAudit : nullptr,
       options.audit_retention_secs, &out.audit_events},
      {sql::kPruneGcCandidates, options.job_retention_secs, &out.gc_candidates},
  };
  for (const Part& part : parts) {
    if (part.statement == nullptr) continue;
    AWC_ASSIGN_OR_RETURN(bool done,
                         PruneAll(conn, part.statement, part.retention, fence,
                                  checkpoint, part.count));
    if (!done) {
      out.complete = false;
      break;
    }
  }
  return out;
}

}  // namespace awc::scheduler
