#include "scheduler/firing.h"

#include "common/json.h"
#include "obs/log.h"
#include "scheduler/scheduler_sql.h"
#include "scheduler/schedules.h"
#include "scheduler/spec.h"

namespace awc::scheduler {
namespace {

std::string Iso(int64_t us) {
  return obs::FormatTimestamp(static_cast<double>(us) / kMicros);
}

// What the schedule does when fired, inside the firing's transaction; the
// error of a failed planner whose session survived is reported in `report`
// (the savepoint undoes what it did).
Status Plan(db::PgConn& conn, const DueSchedule& due, const std::string& kind,
            const std::string& payload, const SchedulerOptions& options,
            RunReport* report) {
  AWC_RETURN_IF_ERROR(conn.Exec("SAVEPOINT awc_plan").status());
  Result<PlanResult> planned =
      due.builtin ? RunPlanner(conn, due.name, options)
                  : EnqueueScheduled(conn, due.name, kind, payload);
  if (!planned.ok()) {
    if (conn.IsBroken()) return planned.status();
    AWC_RETURN_IF_ERROR(conn.Exec("ROLLBACK TO SAVEPOINT awc_plan").status());
    report->ok = false;
    report->error = planned.status().message();
    return Status::OK();
  }
  report->due = planned->due;
  report->enqueued = planned->enqueued;
  report->coverage = planned->coverage;
  return conn.Exec("RELEASE SAVEPOINT awc_plan").status();
}

}  // namespace

std::string RunReport::ResultJson() const {
  JsonObject j;
  j.Str("result", result()).Str("slot", Iso(slot_us)).Int("missed", missed);
  if (ok) {
    if (pruned) {
      j.Int("jobs", pruned->jobs)
          .Int("dead_letters", pruned->dead_letters)
          .Int("audit_events", pruned->audit_events)
          .Int("gc_candidates", pruned->gc_candidates)
          .Bool("complete", pruned->complete);
    } else {
      j.Int("due", due).Int("enqueued", enqueued);
    }
    if (coverage) {
      JsonObject c;
      c.Int("objects", coverage->objects)
          .Int("verified", coverage->verified)
          .Int("bytes", coverage->bytes)
          .Num("oldest_unverified_s", coverage->oldest_unverified_secs)
          .Num("required_bytes_per_sec", coverage->required_bytes_per_sec)
          .Num("budget_bytes_per_sec", coverage->budget_bytes_per_sec)
          .Bool("budget_enough", coverage->budget_enough());
      j.Obj("coverage", c);
    }
  } else {
    j.Str("error", error);
  }
  j.Num("duration_s", duration_secs);
  return j.Dump();
}

std::string RunSummary(const std::string& json) {
  Result<JsonPtr> doc = ParseJson(json);
  if (!doc.ok() || !json_is_object(doc->get())) return json.substr(0, 60);
  auto integer = [&](const char* key) -> std::string {
    json_t* v = json_object_get(doc->get(), key);
    return json_is_integer(v) ? std::to_string(json_integer_value(v)) : "?";
  };
  json_t* result = json_object_get(doc->get(), "result");
  std::string text = json_is_string(result) ? json_string_value(result) : "?";
  if (text == "error") {
    json_t* error = json_object_get(doc->get(), "error");
    std::string why = json_is_string(error) ? json_string_value(error) : "";
    return "error: " + why.substr(0, 60);
  }
  if (json_object_get(doc->get(), "jobs") != nullptr) {
    return text + ", pruned " + integer("jobs") + " jobs, " +
           integer("dead_letters") + " dead letters, " +
           integer("audit_events") + " audit events, " +
           integer("gc_candidates") + " gc candidates";
  }
  return text + ", " + integer("enqueued") + " of " + integer("due") +
         " enqueued";
}

Result<std::optional<RunReport>> FireSchedule(
    db::PgConn& conn, LeaderLease& lease, const DueSchedule& due,
    const SchedulerOptions& options,
    const std::function<Result<bool>()>& checkpoint, Env* env) {
  double started = env->NowMonotonic();
  RunReport report;
  report.schedule = due.name;
  bool prune = due.builtin && due.name == kPrune;
  if (prune && due.time_ok) {
    Result<PruneResult> pruned = Prune(
        conn, options, [&] { return lease.Fence(); }, checkpoint);
    if (!pruned.ok()) {
      if (IsLeadershipLost(pruned.status()) || conn.IsBroken()) {
        return pruned.status();
      }
      report.ok = false;
      report.error = pruned.status().message();
    } else {
      report.pruned = *pruned;
    }
  }
  bool fired = false;
  Status s = db::InTransaction(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(lease.Fence());
    AWC_ASSIGN_OR_RETURN(db::PgResult row,
                         conn.ExecCached(sql::kLockDue, {due.name}));
    if (row.rows() == 0) return Status::OK();
    fired = true;
    std::string spec_text = row.GetString(0, 0);
    std::string kind = row.GetString(0, 1);
    std::string payload = row.GetString(0, 2);
    bool time_ok = !row.IsNull(0, 4);
    int64_t now_us = row.GetInt(0, 5);
    report.slot_us = time_ok ? row.GetInt(0, 4) : now_us;
    Result<Spec> spec = ParseSpec(spec_text);
    if (!spec.ok()) {
      report.ok = false;
      report.error = spec.status().message();
      report.next_us = now_us + kInvalidSpecRetrySecs * kMicros;
    } else if (!time_ok) {
      report.ok = false;
      report.error = UnusableNextRun(row.GetString(0, 6)) + "; skipped";
      report.next_us = NextAfter(*spec, now_us);
    } else {
      report.missed = MissedBetween(*spec, report.slot_us, now_us);
      report.next_us = NextAfter(*spec, now_us);
      if (!prune) {
        if (due.builtin && !IsBuiltinPlanner(due.name)) {
          report.ok = false;
          report.error = "no built-in planner named \"" + due.name + "\"";
        } else {
          AWC_RETURN_IF_ERROR(Plan(conn, due, kind, payload, options, &report));
        }
      }
    }
    report.duration_secs = env->NowMonotonic() - started;
    return conn
        .ExecCached(sql::kRecordRun, {due.name, std::to_string(report.next_us),
                                      report.ResultJson()})
        .status();
  });
  if (!s.ok()) return s;
  if (!fired) return std::optional<RunReport>();
  return std::optional<RunReport>(std::move(report));
}

}  // namespace awc::scheduler
