#include "scheduler/schedule_admin.h"

#include <time.h>

#include "common/json.h"
#include "scheduler/leader_lease_sql.h"
#include "scheduler/schedule_clamp.h"
#include "scheduler/scheduler_sql.h"
#include "scheduler/schedules.h"
#include "scheduler/spec.h"

namespace awc::scheduler {
namespace {

// Runs `body` in a transaction that also notifies the leading scheduler,
// after creating the missing built-in schedules.
template <typename Fn>
Status Change(db::PgConn& conn, Fn&& body) {
  AWC_RETURN_IF_ERROR(EnsureBuiltins(conn));
  return db::InTransaction(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(body());
    return conn.Exec(sql::kNotifySchedules).status();
  });
}

struct Flags {
  bool builtin = false;
  bool paused = false;
};

// Locks nothing: the flags of `name`, or kNotFound.
Result<Flags> FlagsOf(db::PgConn& conn, const std::string& name) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kScheduleFlags, {name}));
  if (r.rows() == 0) {
    return Status::NotFound("no schedule named \"" + name + "\"");
  }
  return Flags{r.GetBool(0, 0), r.GetBool(0, 1)};
}

// `us` (µs since the epoch) as awcctl shows next runs, to the second.
std::string IsoSeconds(int64_t us) {
  time_t t = static_cast<time_t>(us / kMicros);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<int64_t> NowMicros(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kNowMicros));
  return r.GetInt(0, 0);
}

}  // namespace

Status CheckScheduleName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 63;
  for (size_t i = 0; ok && i < name.size(); ++i) {
    char c = name[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    ok = alnum || (i > 0 && (c == '_' || c == '.' || c == '-'));
  }
  if (ok) return Status::OK();
  return Status::InvalidArgument(
      "schedule name \"" + name +
      "\": 1 to 63 characters, lowercase letters, digits, '_', '.' and '-', "
      "starting with a letter or digit");
}

Result<std::vector<ScheduleRow>> ListSchedules(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kListSchedules, BuiltinParams()));
  std::vector<ScheduleRow> out;
  for (int i = 0; i < r.rows(); ++i) {
    ScheduleRow row;
    row.name = r.GetString(i, 0);
    row.spec = r.GetString(i, 1);
    row.kind = r.GetString(i, 2);
    row.payload = r.GetString(i, 3);
    row.builtin = r.GetBool(i, 4);
    row.paused = r.GetBool(i, 5);
    row.next_run_at = r.GetString(i, 6);
    row.last_run_at = r.GetString(i, 7);
    row.last_result = r.GetString(i, 8);
    row.runs = r.GetInt(i, 9);
    row.unusable_next_run = r.GetString(i, 10);
    if (!r.IsNull(i, 11)) {
      std::optional<int64_t> to =
          ClampTarget(row.spec, r.GetInt(i, 11), r.GetInt(i, 12));
      if (to) row.clamp_to = IsoSeconds(*to);
    }
    out.push_back(std::move(row));
  }
  return out;
}

Result<std::optional<LeaseRow>> SchedulerLeader(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(sql::kLeaseOf, {sql::kSchedulerLease}));
  if (r.rows() == 0) return std::optional<LeaseRow>();
  return std::optional<LeaseRow>(LeaseRow{r.GetString(0, 0), r.GetInt(0, 1),
                                          r.GetString(0, 2), r.GetBool(0, 3),
                                          r.GetDouble(0, 4)});
}

Status PauseSchedule(db::PgConn& conn, const std::string& name, bool paused) {
  return Change(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(FlagsOf(conn, name).status());
    return conn.Exec(sql::kSetPaused, {name, paused ? "true" : "false"})
        .status();
  });
}

Status RunScheduleNow(db::PgConn& conn, const std::string& name) {
  return Change(conn, [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(Flags flags, FlagsOf(conn, name));
    if (flags.paused) {
      return Status::FailedPrecondition("schedule \"" + name +
                                        "\" is paused; resume it first");
    }
    return conn.Exec(sql::kRunNow, {name}).status();
  });
}

Status SetScheduleSpec(db::PgConn& conn, const std::string& name,
                       const std::string& spec_text) {
  AWC_ASSIGN_OR_RETURN(Spec spec, ParseSpec(spec_text));
  return Change(conn, [&]() -> Status {
    AWC_RETURN_IF_ERROR(FlagsOf(conn, name).status());
    AWC_ASSIGN_OR_RETURN(int64_t now, NowMicros(conn));
    return conn
        .Exec(sql::kSetSpec,
              {name, spec_text, std::to_string(NextAfter(spec, now))})
        .status();
  });
}

Status AddSchedule(db::PgConn& conn, const std::string& name,
                   const std::string& spec_text, const std::string& kind,
                   const std::string& payload) {
  AWC_RETURN_IF_ERROR(CheckScheduleName(name));
  AWC_ASSIGN_OR_RETURN(Spec spec, ParseSpec(spec_text));
  if (kind.empty()) return Status::InvalidArgument("the job kind is empty");
  Result<JsonPtr> doc = ParseJson(payload);
  if (!doc.ok() || !json_is_object(doc->get())) {
    return Status::InvalidArgument("the payload must be a JSON object");
  }
  return Change(conn, [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(int64_t now, NowMicros(conn));
    AWC_ASSIGN_OR_RETURN(
        db::PgResult r,
        conn.Exec(sql::kAddSchedule, {name, spec_text, kind, payload,
                                      std::to_string(NextAfter(spec, now))}));
    if (r.rows() == 0) {
      return Status::FailedPrecondition("a schedule named \"" + name +
                                        "\" already exists");
    }
    return Status::OK();
  });
}

Status RemoveSchedule(db::PgConn& conn, const std::string& name) {
  return Change(conn, [&]() -> Status {
    AWC_ASSIGN_OR_RETURN(Flags flags, FlagsOf(conn, name));
    if (flags.builtin) {
      return Status::FailedPrecondition(
          "schedule \"" + name +
          "\" is built in and cannot be removed; pause it instead");
    }
    return conn.Exec(sql::kRemoveSchedule, {name}).status();
  });
}

}  // namespace awc::scheduler
