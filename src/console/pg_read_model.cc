#include "console/pg_read_model.h"

#include "console/console_sql.h"
#include "console/paging.h"
#include "queue/dead_letters.h"

namespace awc::console {
namespace {

Result<Clock> ReadClock(db::PgConn& conn,
                        std::optional<int64_t>* jobs_estimate = nullptr) {
  AWC_ASSIGN_OR_RETURN(db::PgResult r, conn.Exec(sql::kClock));
  Clock c;
  c.now = r.GetDouble(0, 0);
  c.now_iso = r.GetString(0, 1);
  if (jobs_estimate != nullptr && !r.IsNull(0, 2)) {
    *jobs_estimate = r.GetInt(0, 2);
  }
  return c;
}

std::optional<int64_t> OptInt(const db::PgResult& r, int row, int col) {
  if (r.IsNull(row, col)) return std::nullopt;
  return r.GetInt(row, col);
}

// Runs the older or newer statement of a listing for `page`, with
// `params` followed by the cursor and the row count, and maps each row.
template <typename Row, typename Map>
Result<Page<Row>> ReadPage(db::PgConn& conn, const char* older,
                           const char* newer, db::Params params,
                           const PageRequest& page, Map map) {
  PageQuery q = PlanPage(page);
  params.push_back(std::to_string(q.cursor));
  params.push_back(std::to_string(q.fetch));
  AWC_ASSIGN_OR_RETURN(db::PgResult r,
                       conn.Exec(q.newer ? newer : older, params));
  std::vector<Row> rows;
  for (int i = 0; i < r.rows(); ++i) rows.push_back(map(r, i));
  Page<Row> out;
  AWC_ASSIGN_OR_RETURN(out.clock, ReadClock(conn));
  FinishPage(page, q, std::move(rows), &out);
  return out;
}

SnapshotRow SnapshotAt(const db::PgResult& r, int i) {
  SnapshotRow s;
  s.id = r.GetInt(i, 0);
  s.tenant_id = r.GetString(i, 1);
  s.workspace_id = r.GetInt(i, 2);
  s.state = r.GetString(i, 3);
  s.pinned = r.GetBool(i, 4);
  s.root_digest = r.GetString(i, 5);
  s.created_at = r.GetString(i, 6);
  s.validated_at = r.GetString(i, 7);
  s.scrubbed_at = r.GetString(i, 8);
  s.released_at = r.GetString(i, 9);
  s.object_count = OptInt(r, i, 10);
  s.byte_count = OptInt(r, i, 11);
  s.failure_code = r.GetString(i, 12);
  s.failure_digest = r.GetString(i, 13);
  s.failure = r.GetString(i, 14);
  return s;
}

AuditRow AuditAt(const db::PgResult& r, int i) {
  return AuditRow{r.GetInt(i, 0),    r.GetString(i, 1), r.GetString(i, 2),
                  r.GetString(i, 3), r.GetString(i, 4), r.GetString(i, 5)};
}

EpochRow EpochAt(const db::PgResult& r, int i) {
  EpochRow e;
  e.id = r.GetInt(i, 0);
  e.tenant_id = r.GetString(i, 1);
  e.state = r.GetString(i, 2);
  e.dry_run = r.GetBool(i, 3);
  e.planned = r.GetInt(i, 4);
  e.planned_bytes = r.GetInt(i, 5);
  e.deleted = r.GetInt(i, 6);
  e.deleted_bytes = r.GetInt(i, 7);
  e.kept = r.GetInt(i, 8);
  e.canary_verified = r.GetBool(i, 9);
  e.reason = r.GetString(i, 10);
  e.job_id = r.GetInt(i, 11);
  e.created_at = r.GetString(i, 12);
  e.finished_at = r.GetString(i, 13);
  return e;
}

Result<std::vector<KindDepth>> ReadQueueDepth(db::PgConn& conn) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn.Exec(sql::kKindCounts, {std::to_string(kJobCountCap)}));
  std::vector<KindDepth> out;
  for (int i = 0; i < r.rows(); ++i) {
    KindDepth k;
    k.kind = r.GetString(i, 0);
    k.ready = r.GetInt(i, 1);
    k.scheduled = r.GetInt(i, 2);
    k.running = r.GetInt(i, 3);
    k.failed = r.GetInt(i, 4);
    k.cancelled = r.GetInt(i, 5);
    k.completed = r.GetInt(i, 6);
    if (!r.IsNull(i, 7)) k.oldest_ready_secs = r.GetDouble(i, 7);
    out.push_back(std::move(k));
  }
  return out;
}

Result<SchedulerView> ReadScheduler(db::PgConn& conn) {
  SchedulerView v;
  AWC_ASSIGN_OR_RETURN(v.leader, scheduler::SchedulerLeader(conn));
  AWC_ASSIGN_OR_RETURN(v.schedules, scheduler::ListSchedules(conn));
  return v;
}

}  // namespace

PgReadModel::PgReadModel(std::unique_ptr<PgSession> session)
    : session_(std::move(session)) {}

Result<Overview> PgReadModel::ReadOverview() {
  return session_->Read([](db::PgConn& conn) -> Result<Overview> {
    Overview o;
    AWC_ASSIGN_OR_RETURN(o.clock, ReadClock(conn, &o.jobs_estimate));
    AWC_ASSIGN_OR_RETURN(o.queue, ReadQueueDepth(conn));
    AWC_ASSIGN_OR_RETURN(o.paused_kinds, queue::PausedKinds(conn));
    AWC_ASSIGN_OR_RETURN(o.horizon, queue::SampleHorizon(conn));
    AWC_ASSIGN_OR_RETURN(o.dead_by_reason, queue::DeadLettersByReason(conn));
    AWC_ASSIGN_OR_RETURN(o.workers, fleet::ListWorkers(conn));
    AWC_ASSIGN_OR_RETURN(o.id_clashes, fleet::IdClashes(conn));
    AWC_ASSIGN_OR_RETURN(o.scheduler, ReadScheduler(conn));
    AWC_ASSIGN_OR_RETURN(
        db::PgResult snaps,
        conn.Exec(sql::kSnapshotStates, {std::to_string(kSnapshotCap)}));
    for (int i = 0; i < snaps.rows(); ++i) {
      if (snaps.GetInt(i, 1) == 0) continue;
      o.snapshots.push_back({snaps.GetString(i, 0), snaps.GetInt(i, 1)});
    }
    AWC_ASSIGN_OR_RETURN(o.workspaces, catalog::WorkspacesByState(conn));
    AWC_ASSIGN_OR_RETURN(o.epochs, gc::LastEpochs(conn));
    return o;
  });
}

Result<Page<queue::JobRow>> PgReadModel::ReadJobs(const JobFilter& f,
                                                  const PageRequest& page) {
  return session_->Read([&](db::PgConn& conn) {
    return ReadPage<queue::JobRow>(conn, sql::kJobsOlder, sql::kJobsNewer,
                                   {f.state, f.kind, f.reason}, page,
                                   queue::JobRowAt);
  });
}

Result<std::optional<JobView>> PgReadModel::ReadJob(int64_t id) {
  return session_->Read(
      [&](db::PgConn& conn) -> Result<std::optional<JobView>> {
        AWC_ASSIGN_OR_RETURN(std::optional<queue::JobDetail> job,
                             queue::ShowJob(conn, id));
        if (!job) return std::optional<JobView>();
        JobView v;
        AWC_ASSIGN_OR_RETURN(v.clock, ReadClock(conn));
        v.job = std::move(*job);
        return std::optional<JobView>(std::move(v));
      });
}

Result<DeadLetterView> PgReadModel::ReadDeadLetters(const JobFilter& f,
                                                    int limit) {
  return session_->Read([&](db::PgConn& conn) -> Result<DeadLetterView> {
    DeadLetterView v;
    AWC_ASSIGN_OR_RETURN(v.clock, ReadClock(conn));
    AWC_ASSIGN_OR_RETURN(v.by_reason, queue::DeadLettersByReason(conn));
    AWC_ASSIGN_OR_RETURN(db::PgResult kinds,
                         conn.Exec(sql::kDeadLettersByKind));
    for (int i = 0; i < kinds.rows(); ++i) {
      v.by_kind.push_back({kinds.GetString(i, 0), kinds.GetInt(i, 1)});
    }
    queue::DeadLetterFilter dlq;
    dlq.kind = f.kind;
    dlq.reason = f.reason;
    AWC_ASSIGN_OR_RETURN(v.matching, queue::CountDeadLetters(conn, dlq));
    AWC_ASSIGN_OR_RETURN(v.newest, queue::ListDeadLetters(conn, dlq, limit));
    return v;
  });
}

Result<Page<SnapshotRow>> PgReadModel::ReadSnapshots(const SnapshotFilter& f,
                                                     const PageRequest& page) {
  return session_->Read([&](db::PgConn& conn) {
    return ReadPage<SnapshotRow>(conn, sql::kSnapshotsOlder,
                                 sql::kSnapshotsNewer, {f.tenant, f.state},
                                 page, SnapshotAt);
  });
}

Result<std::optional<SnapshotView>> PgReadModel::ReadSnapshot(int64_t id) {
  return session_->Read(
      [&](db::PgConn& conn) -> Result<std::optional<SnapshotView>> {
        AWC_ASSIGN_OR_RETURN(db::PgResult r,
                             conn.Exec(sql::kSnapshot, {std::to_string(id)}));
        if (r.rows() == 0) return std::optional<SnapshotView>();
        SnapshotView v;
        AWC_ASSIGN_OR_RETURN(v.clock, ReadClock(conn));
        v.snapshot = SnapshotAt(r, 0);
        AWC_ASSIGN_OR_RETURN(db::PgResult h,
                             conn.Exec(sql::kSnapshotHistory,
                                       {"snapshot/" + std::to_string(id)}));
        for (int i = 0; i < h.rows(); ++i) v.history.push_back(AuditAt(h, i));
        return std::optional<SnapshotView>(std::move(v));
      });
}

Result<GcView> PgReadModel::ReadGc(const std::string& tenant,
                                   const PageRequest& page) {
  return session_->Read([&](db::PgConn& conn) -> Result<GcView> {
    GcView v;
    AWC_ASSIGN_OR_RETURN(
        v.epochs, ReadPage<EpochRow>(conn, sql::kEpochsOlder, sql::kEpochsNewer,
                                     {tenant}, page, EpochAt));
    AWC_ASSIGN_OR_RETURN(db::PgResult locks, conn.Exec(sql::kGcLocks));
    for (int i = 0; i < locks.rows(); ++i) {
      v.locks.push_back(GcLockRow{locks.GetString(i, 0), locks.GetString(i, 1),
                                  locks.GetString(i, 2), locks.GetString(i, 3),
                                  locks.GetBool(i, 4)});
    }
    return v;
  });
}

Result<Page<AuditRow>> PgReadModel::ReadAudit(const AuditFilter& f,
                                              const PageRequest& page) {
  return session_->Read([&](db::PgConn& conn) {
    return ReadPage<AuditRow>(conn, sql::kAuditOlder, sql::kAuditNewer,
                              {f.event, f.tenant, f.subject}, page, AuditAt);
  });
}

}  // namespace awc::console
