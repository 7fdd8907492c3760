#include "queue/job_queue.h"

#include "common/numbers.h"
#include "queue/kind_settings_sql.h"
#include "queue/queue_sql.h"

namespace awc::queue {
namespace {

// How far back a full sweep of ended leases looks (about 300 years: all of
// them); and the margin of an incremental one for the time between the
// clock reading that bounds it and its statement's now().
constexpr double kWholeSweepSecs = 1e10;
constexpr double kSweepMarginSecs = 2.0;

Job JobFromRow(const db::PgResult& r) {
  Job job;
  job.id = r.GetInt(0, 0);
  job.kind = r.GetString(0, 1);
  job.payload = r.GetString(0, 2);
  job.attempts = static_cast<int>(r.GetInt(0, 3));
  job.max_attempts = static_cast<int>(r.GetInt(0, 4));
  job.lease_token = r.GetInt(0, 5);
  job.run_at = r.GetDouble(0, 6);
  job.priority = static_cast<int>(r.GetInt(0, 8));
  return job;
}

}  // namespace

JobQueue::JobQueue(db::PgConn* conn, std::string worker_id, int64_t lease_secs,
                   Xorshift32* rng, Env* env)
    : conn_(conn),
      worker_id_(std::move(worker_id)),
      lease_secs_(std::to_string(lease_secs)),
      rng_(rng),
      env_(env) {}

Status JobQueue::Prepare() {
  AWC_RETURN_IF_ERROR(
      conn_->Prepare("queue_transaction", sql::kQueueTransaction));
  AWC_RETURN_IF_ERROR(conn_->Prepare("claim", sql::kClaim));
  AWC_RETURN_IF_ERROR(
      conn_->Prepare("claim_within_limits", sql::ClaimWithinLimits()));
  AWC_RETURN_IF_ERROR(conn_->Prepare("limits_known", sql::kLimitsKnown));
  AWC_RETURN_IF_ERROR(conn_->Prepare("limits_lock", sql::kLimitsLock));
  AWC_RETURN_IF_ERROR(conn_->Prepare("limits_out", sql::kLimitsOut));
  AWC_RETURN_IF_ERROR(conn_->Prepare("complete", sql::Fenced(sql::kComplete)));
  AWC_RETURN_IF_ERROR(conn_->Prepare("retry", sql::Fenced(sql::kRetry)));
  AWC_RETURN_IF_ERROR(conn_->Prepare("fail", sql::Fenced(sql::kFail)));
  AWC_RETURN_IF_ERROR(conn_->Prepare("defer", sql::Fenced(sql::kDefer)));
  AWC_RETURN_IF_ERROR(conn_->Prepare("renew", sql::kRenewLease));
  AWC_RETURN_IF_ERROR(conn_->Prepare("held", sql::kJobHeld));
  AWC_RETURN_IF_ERROR(conn_->Prepare("reclaim", sql::kReclaim));
  AWC_RETURN_IF_ERROR(conn_->Prepare("release_orphan", sql::kReleaseOrphan));
  return conn_->Listen(sql::kListen);
}

Result<std::optional<Job>> JobQueue::Claim() {
  AWC_ASSIGN_OR_RETURN(Finished out, Run(nullptr, nullptr, true));
  return std::move(out.next);
}

Result<int> JobQueue::TakeNotifications() {
  return conn_->DrainNotifications(
      [this](const char* payload) { cursor_.Notified(payload); });
}

Result<Finished> JobQueue::Finish(const Job& job, const Outcome& outcome,
                                  bool claim_next) {
  return Run(&job, &outcome, claim_next);
}

db::PgConn::Prepared JobQueue::RecordStatement(const Job& job,
                                               const Outcome& outcome) {
  std::string id = std::to_string(job.id);
  std::string token = std::to_string(job.lease_token);
  switch (outcome.kind) {
    case Outcome::Kind::kComplete:
      return {"complete", {id, token, outcome.result}};
    case Outcome::Kind::kRetry:
      return {"retry",
              {id, token, SecondsText(NextRetryDelay(job.attempts)),
               outcome.error}};
    case Outcome::Kind::kFail:
      return {"fail",
              {id, token, outcome.error, DeadReasonName(outcome.reason)}};
    case Outcome::Kind::kDefer:
      break;
  }
  return {"defer", {id, token, SecondsText(outcome.delay_secs), outcome.error}};
}

void JobQueue::ExcludeKinds(const std::vector<std::string>& kinds) {
  if (kinds == excluded_) return;
  excluded_ = kinds;
  excluded_param_ = db::ArrayLiteral(kinds);
  cursor_.Rewind();
}

Result<Finished> JobQueue::Run(const Job* job, const Outcome* outcome,
                               bool claim, bool retried) {
  // One pipeline, one round trip, one asynchronous commit: the outcome
  // and the next claim. The claim still commits before its handler runs.
  std::vector<db::PgConn::Prepared> statements;
  statements.push_back({"queue_transaction", {}});
  if (job != nullptr) statements.push_back(RecordStatement(*job, *outcome));
  bool full_pass = false;
  double started = 0;
  size_t limits_known = 0;  // the indexes of their results, when sent
  size_t limits_out = 0;
  if (claim) {
    AWC_RETURN_IF_ERROR(TakeNotifications().status());
    started = env_->NowMonotonic();
    full_pass = cursor_.Begin(started);
    if (full_pass) {
      limits_known = statements.size();
      statements.push_back({"limits_known", {}});
    }
    // A full pass keeps them whatever it learns: a new session's first
    // claim, and the first after a limit was set, which rewinds.
    if (keeps_limits_ || full_pass) {
      statements.push_back({"limits_lock", {worker_id_, excluded_param_}});
      limits_out = statements.size();
      statements.push_back({"limits_out", {worker_id_}});
    }
    statements.push_back({limits_out != 0 ? "claim_within_limits" : "claim",
                          {worker_id_, lease_secs_, cursor_.micros_param(),
                           cursor_.ids_param(), excluded_param_}});
  }
  Result<std::vector<db::PgResult>> ran = conn_->ExecPipeline(statements);
  if (claim) {
    double now = env_->NowMonotonic();
    cursor_.End(full_pass, ran.ok(), now, now - started);
  }
  AWC_RETURN_IF_ERROR(ran.status());
  std::vector<db::PgResult>& results = *ran;
  Finished out;
  size_t next = 1;
  if (job != nullptr) {
    const db::PgResult& r = results[next++];
    // No row: the job is gone (deleted by its owner).
    if (r.rows() > 0) {
      out.recorded.applied = r.GetBool(0, 0);
      out.recorded.state = ParseJobState(r.Get(0, 1));
      out.recorded.attempts = static_cast<int>(r.GetInt(0, 2));
      out.recorded.lag_secs = r.GetDouble(0, 3) - job->run_at;
      out.recorded.dead_reason = ParseDeadReason(r.Get(0, 4));
      out.recorded.deferred =
          outcome->kind == Outcome::Kind::kDefer && out.recorded.applied;
      out.recorded.taken_over = r.GetBool(0, 5);
    }
  }
  // The kinds at a limit changed from some: one may have been let in.
  bool let_in = false;
  if (claim) {
    if (limits_known != 0) keeps_limits_ = results[limits_known].GetBool(0, 0);
    std::string at_limit =
        limits_out != 0 ? results[limits_out].GetString(0, 0) : "{}";
    let_in = at_limit != at_limit_ && at_limit_ != "{}";
    at_limit_ = at_limit;
    next = results.size() - 1;  // the claim's, after the limits' statements
    int64_t now_micros = ClaimCursor::ParseMicros(results[0].Get(0, 2));
    if (results[next].rows() > 0) {
      out.next = JobFromRow(results[next]);
      cursor_.Claimed(out.next->priority,
                      ClaimCursor::ParseMicros(results[next].Get(0, 7)),
                      out.next->id, now_micros);
    } else {
      cursor_.Passed(now_micros);
    }
  }
  // The claim may have walked past the jobs of a kind that was at a limit,
  // as past those of a kind left alone (ExcludeKinds): once such a kind is
  // let in again, the walk starts over. A claim that found nothing then
  // tries again at once rather than at the next poll.
  if (let_in) {
    cursor_.Rewind();
    if (!out.next && !retried) {
      AWC_ASSIGN_OR_RETURN(Finished again, Run(nullptr, nullptr, true, true));
      out.next = std::move(again.next);
    }
  }
  return out;
}

Result<bool> JobQueue::RenewLease(const Job& job) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecPrepared(
          "renew", {std::to_string(job.id), std::to_string(job.lease_token),
                    lease_secs_}));
  return r.rows() == 1;
}

Result<bool> JobQueue::StillHeld(const Job& job) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecPrepared(
          "held", {std::to_string(job.id), std::to_string(job.lease_token)}));
  return r.rows() == 1;
}

void JobQueue::FenceTransactions(const Job* job) {
  if (job == nullptr) {
    conn_->ClearFence();
    return;
  }
  conn_->SetFence(
      sql::kFenceJob,
      {std::to_string(job->id), std::to_string(job->lease_token)},
      "job is no longer held by this worker (cancelled or reclaimed)");
}

namespace {

// Row `i` of kReclaim or kReleaseOrphan.
Reclaimed ReclaimedFromRow(const db::PgResult& r, int i) {
  Reclaimed out;
  out.id = r.GetInt(i, 0);
  out.kind = r.GetString(i, 1);
  out.state = ParseJobState(r.Get(i, 2));
  out.attempts = static_cast<int>(r.GetInt(i, 3));
  out.lag_secs = r.GetDouble(i, 4);
  out.dead_reason = ParseDeadReason(r.Get(i, 5));
  return out;
}

}  // namespace

Result<std::vector<Reclaimed>> JobQueue::Reclaim(int limit,
                                                 int64_t silent_secs) {
  double started = env_->NowMonotonic();
  bool full = sweep_clock_.Due(started);
  double back =
      full ? kWholeSweepSecs : started - swept_since_ + kSweepMarginSecs;
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecPrepared("reclaim",
                          {std::to_string(limit), std::to_string(silent_secs),
                           SecondsText(back)}));
  std::vector<Reclaimed> out;
  int ended = 0;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(ReclaimedFromRow(r, i));
    if (r.GetBool(i, 6)) {
      ++ended;
    } else {
      out.back().why = TakenBack::kHolderSilent;
    }
  }
  // A full batch may have left ended leases behind: the next sweep looks
  // back as far as this one did.
  if (ended < limit) {
    swept_since_ = started;
    if (full) {
      double now = env_->NowMonotonic();
      sweep_clock_.Done(now, now - started);
    }
  }
  return out;
}

Result<std::optional<Reclaimed>> JobQueue::ReleaseOrphan(
    int64_t id, int64_t lease_token, const std::string& error) {
  AWC_ASSIGN_OR_RETURN(
      db::PgResult r,
      conn_->ExecPrepared(
          "release_orphan",
          {std::to_string(id), std::to_string(lease_token), error}));
  if (r.rows() == 0) return std::optional<Reclaimed>();
  Reclaimed out = ReclaimedFromRow(r, 0);
  out.why = TakenBack::kWorkerDied;
  return std::optional<Reclaimed>(std::move(out));
}

}  // namespace awc::queue
