#include "worker/pg_job_source.h"

#include <utility>

#include "db/writable.h"
#include "process/loop_wait.h"

namespace awc::worker {

PgJobSource::PgJobSource(struct ev_loop* loop, std::string conninfo,
                         fleet::WorkerIdentity me, int64_t lease_secs,
                         db::PoolMode pool_mode)
    : loop_(loop),
      conninfo_(std::move(conninfo)),
      me_(std::move(me)),
      lease_secs_(lease_secs),
      pool_mode_(pool_mode),
      rng_(queue::Xorshift32::FromWorkerId(me_.worker_id)) {}

PgJobSource::~PgJobSource() { Disconnect(); }

Status PgJobSource::Connect() {
  Disconnect();
  AWC_ASSIGN_OR_RETURN(
      std::unique_ptr<db::PgConn> conn,
      db::PgConn::Connect(conninfo_, me_.worker_id, pool_mode_));
  // A session that cannot write is on the wrong server: refused, so that
  // the worker connects again with backoff (docs/operations.md,
  // "Read-only sessions").
  AWC_RETURN_IF_ERROR(db::RequireWritable(*conn));
  auto queue = std::make_unique<queue::JobQueue>(conn.get(), me_.worker_id,
                                                 lease_secs_, &rng_);
  AWC_RETURN_IF_ERROR(queue->Prepare());
  queue->ExcludeKinds(excluded_);
  conn_ = std::move(conn);
  queue_ = std::move(queue);
  return Status::OK();
}

void PgJobSource::Disconnect() {
  queue_.reset();
  conn_.reset();
}

void PgJobSource::ExcludeKinds(const std::vector<std::string>& kinds) {
  excluded_ = kinds;
  if (queue_) queue_->ExcludeKinds(kinds);
}

Result<std::optional<queue::Job>> PgJobSource::Claim() {
  return queue_->Claim();
}

Result<queue::Finished> PgJobSource::Finish(const queue::Job& job,
                                            const queue::Outcome& outcome,
                                            bool claim_next) {
  return queue_->Finish(job, outcome, claim_next);
}

void PgJobSource::FenceTransactions(const queue::Job* job) {
  if (queue_) queue_->FenceTransactions(job);
}

Result<bool> PgJobSource::RenewLease(const queue::Job& job) {
  return queue_->RenewLease(job);
}

Result<bool> PgJobSource::StillHeld(const queue::Job& job) {
  return queue_->StillHeld(job);
}

Result<std::vector<queue::Reclaimed>> PgJobSource::Reclaim(
    int limit, int64_t silent_secs) {
  return queue_->Reclaim(limit, silent_secs);
}

Result<std::optional<queue::Reclaimed>> PgJobSource::ReleaseOrphan(
    int64_t job_id, int64_t lease_token, const std::string& error) {
  return queue_->ReleaseOrphan(job_id, lease_token, error);
}

Status PgJobSource::Heartbeat(const Beat& beat) {
  AWC_RETURN_IF_ERROR(fleet::Beat(*conn_, me_, beat.state, beat.job_id,
                                  beat.job_kind, beat.progress));
  if (beat.prune) AWC_RETURN_IF_ERROR(fleet::Prune(*conn_, me_).status());
  return Status::OK();
}

Status PgJobSource::WaitForWork(double seconds, const process::StopFn& stop) {
  AWC_ASSIGN_OR_RETURN(int notes, queue_->TakeNotifications());
  if (notes > 0) return Status::OK();
  Wait(seconds, true, &stop);
  // What woke the wait is consumed here, so that it does not cut the next
  // wait short; the claim cursor learns where the new work is.
  return queue_->TakeNotifications().status();
}

void PgJobSource::Pause(double seconds, const process::StopFn* stop) {
  Wait(seconds, false, stop);
}

void PgJobSource::Wait(double seconds, bool watch_socket,
                       const process::StopFn* stop) {
  int fd = watch_socket && conn_ ? conn_->Socket() : -1;
  process::WaitOnLoop(loop_, seconds, fd, stop);
}

}  // namespace awc::worker
