#include "scheduler/planners.h"

#include "scheduler/scheduler_sql.h"

namespace awc::scheduler {
namespace {

constexpr BuiltinSchedule kBuiltins[] = {
    {"gc", "@every 6h", "gc_sweep"},
    {"expire", "@every 1m", "workspace_expire"},
    {"retain", "@every 10m", "snapshot_retain"},
    {"scrub", "@every 1h", "snapshot_scrub"},
    {"validate", "@every 5m", "snapshot_validate"},
    {kPrune, "@every 1h", ""},
};

PlanResult FromRow(const db::PgResult& r) {
  return {r.GetInt(0, 0), r.GetInt(0, 1)};
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
  if (name == "gc") return sql::kPlanGc;
  if (name == "expire") return sql::kPlanExpire;
  if (name == "retain") return sql::kPlanRetain;
  if (name == "scrub") return sql::kPlanScrub;
  if (name == "validate") return sql::kPlanValidate;
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
    params = {std::to_string(options.scrub_interval_secs),
              std::to_string(options.scrub_max_per_run)};
  } else if (name == "validate") {
    params = {std::to_string(kValidateMinAgeSecs), limit};
  }
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(statement, params));
  return FromRow(r);
}

Result<PlanResult> EnqueueScheduled(db::PgConn& conn, const std::string& name,
                                    const std::string& kind,
                                    const std::string& payload) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kEnqueueScheduled, {kind, payload, "schedule:" + name}));
  return PlanResult{1, r.rows()};
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
