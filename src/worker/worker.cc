#include "worker/worker.h"

#include <bsd/unistd.h>
#include <ev.h>

#include <algorithm>
#include <exception>

#include "common/env.h"
#include "obs/log.h"
#include "store/open_store.h"
#include "worker/job_event.h"
#include "worker/stop_flag.h"

namespace awc::worker {
namespace {

constexpr double kReconnectMin = 0.25;
constexpr double kReconnectMax = 15.0;
constexpr int kReclaimBatch = 100;

double Now() { return Env::Default()->NowMonotonic(); }

// A job kind as shown in the process title: printable, bounded.
std::string TitleSafe(std::string_view kind) {
  std::string out;
  for (char c : kind.substr(0, 48)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    out += ok ? c : '?';
  }
  return out;
}

struct WaitFlag {
  bool fired = false;
};

void OnWaitTimer(struct ev_loop*, ev_timer* w, int) {
  static_cast<WaitFlag*>(w->data)->fired = true;
}

void OnWaitIo(struct ev_loop*, ev_io* w, int) {
  static_cast<WaitFlag*>(w->data)->fired = true;
}

}  // namespace

// The JobContext a handler sees for the job in flight.
class Worker::Context : public handlers::JobContext {
 public:
  Context(Worker* worker, const queue::Job& job)
      : worker_(worker), job_(job), last_renew_(Now()) {}

  const queue::Job& job() const override { return job_; }
  db::PgConn& db() override { return *worker_->conn_; }
  const handlers::HandlerOptions& options() const override {
    return *worker_->deps_.handler_options;
  }
  struct ev_loop* loop() override {
    return worker_->loop_;
  }
  store::ObjectStore& store() override { return *worker_->store_; }

  Status Checkpoint() override {
    double lease =
        static_cast<double>(worker_->deps_.settings->worker_lease_secs);
    if (Now() - last_renew_ < lease / 3) return Status::OK();
    if (!worker_->queue_) return Status::OK();
    Result<bool> held = worker_->queue_->RenewLease(job_);
    if (!held.ok()) {
      // The connection stays as it is, broken or not: the handler holds
      // references to it (db() and the statements it runs). Recording the
      // outcome, after the handler returns, reconnects.
      if (worker_->deps_.metrics != nullptr) {
        worker_->deps_.metrics->CountApiError();
      }
      obs::Warn("job_" + std::to_string(job_.id), "lease renewal failed")
          .Str("error", held.status().message())
          .Emit();
      return Status::OK();
    }
    last_renew_ = Now();
    if (!*held) {
      return Status::FailedPrecondition(
          "job is no longer held by this worker (cancelled or reclaimed)");
    }
    return Status::OK();
  }

  // When the lease ends at the latest, on the monotonic clock.
  double LeaseEnd() const {
    return last_renew_ +
           static_cast<double>(worker_->deps_.settings->worker_lease_secs);
  }

 private:
  Worker* worker_;
  const queue::Job& job_;
  double last_renew_;
};

void Worker::OnRenewTimer(struct ev_loop*, ev_timer* w, int) {
  (void)static_cast<Context*>(w->data)->Checkpoint();
}

Worker::Worker(WorkerDeps deps, int slot)
    : deps_(deps),
      slot_(slot),
      id_(deps.settings->worker_id + "-" + std::to_string(slot + 1)),
      loop_(ev_loop_new(EVFLAG_AUTO)) {}

Worker::~Worker() {
  queue_.reset();
  conn_.reset();
  store_.reset();
  if (loop_ != nullptr) ev_loop_destroy(loop_);
}

void Worker::SetPhase(supervisor::WorkerPhase phase, int64_t job_id) {
  if (deps_.status == nullptr) return;
  deps_.status->SetPhase(slot_, phase);
  deps_.status->slot(slot_).job_id.store(job_id, std::memory_order_relaxed);
}

void Worker::SetTitle(const std::string& what) {
  setproctitle("-awc-worker: worker %d %s", slot_ + 1, what.c_str());
}

bool Worker::EnsureConnected() {
  if (conn_) return true;
  Result<std::unique_ptr<db::PgConn>> conn =
      db::PgConn::Connect(deps_.settings->database_url, id_);
  Status s = conn.status();
  if (conn.ok()) {
    queue_ = std::make_unique<queue::JobQueue>(
        conn->get(), id_, deps_.settings->worker_lease_secs);
    conn_ = std::move(*conn);
    s = queue_->Prepare();
    if (!s.ok()) {
      queue_.reset();
      conn_.reset();
    }
  }
  if (!s.ok()) {
    reconnect_backoff_ = reconnect_backoff_ == 0
                             ? kReconnectMin
                             : std::min(kReconnectMax, reconnect_backoff_ * 2);
    obs::Warn("worker", "database unavailable")
        .Str("error", s.message())
        .Num("retry_in_s", reconnect_backoff_)
        .Emit();
    if (deps_.status != nullptr) {
      deps_.status->slot(slot_).db_ok.store(false, std::memory_order_relaxed);
    }
    return false;
  }
  if (reconnect_backoff_ > 0)
    obs::Info("worker", "database reconnected").Emit();
  reconnect_backoff_ = 0;
  if (deps_.status != nullptr) {
    deps_.status->slot(slot_).db_ok.store(true, std::memory_order_relaxed);
  }
  return true;
}

void Worker::DropConnection(const Status& why) {
  obs::Warn("worker", "database connection lost")
      .Str("error", why.message())
      .Emit();
  queue_.reset();
  conn_.reset();
  if (deps_.status != nullptr) {
    deps_.status->slot(slot_).db_ok.store(false, std::memory_order_relaxed);
  }
}

void Worker::OnDatabaseError(const Status& s, const char* step) {
  if (deps_.metrics != nullptr) deps_.metrics->CountApiError();
  if (conn_ && conn_->IsBroken()) {
    DropConnection(s);
    return;
  }
  obs::Warn("worker", "database error")
      .Str("step", step)
      .Str("error", s.message())
      .Emit();
}

void Worker::Wait(double seconds, bool watch_socket, bool interruptible) {
  if (seconds <= 0) return;
  WaitFlag flag;
  ev_now_update(loop_);
  ev_timer timer;
  ev_timer_init(&timer, OnWaitTimer, seconds, 0);
  timer.data = &flag;
  ev_timer_start(loop_, &timer);
  ev_io io;
  bool io_on = watch_socket && conn_ && conn_->Socket() >= 0;
  if (io_on) {
    ev_io_init(&io, OnWaitIo, conn_->Socket(), EV_READ);
    io.data = &flag;
    ev_io_start(loop_, &io);
  }
  while (!flag.fired && !(interruptible && StopRequested())) {
    ev_run(loop_, EVRUN_ONCE);
  }
  ev_timer_stop(loop_, &timer);
  if (io_on) ev_io_stop(loop_, &io);
}

void Worker::MaybeReclaim() {
  double now = Now();
  if (now < next_reclaim_) return;
  double poll =
      static_cast<double>(deps_.settings->worker_poll_interval_ms) / 1000.0;
  next_reclaim_ = now + std::clamp(poll, 0.25, 10.0);
  Result<std::vector<queue::JobQueue::Reclaimed>> r =
      queue_->ReclaimExpired(kReclaimBatch);
  if (!r.ok()) {
    OnDatabaseError(r.status(), "reclaim");
    return;
  }
  for (const auto& job : *r) {
    obs::Event event = MakeJobEvent(job.id, job.kind, job.state, job.attempts);
    event.Str("reason", "lease_expired");
    ReportJob(deps_.metrics, event, job.kind, job.state, job.lag_secs, -1);
  }
}

std::optional<queue::JobQueue::Finished> Worker::RecordOutcome(
    const queue::Job& job, const queue::Outcome& outcome, double lease_end) {
  double backoff = 0.1;
  for (;;) {
    if (EnsureConnected()) {
      MaybeReclaim();
      Result<queue::JobQueue::Finished> r =
          queue_ ? queue_->Finish(job, outcome, !StopRequested())
                 : Result<queue::JobQueue::Finished>(
                       Status::Transient("connection lost"));
      if (r.ok()) return std::move(*r);
      OnDatabaseError(r.status(), "record");
    }
    double left = lease_end - Now();
    if (left <= 0) {
      obs::Error("job_" + std::to_string(job.id),
                 "outcome not recorded; the job will be retried after its "
                 "lease expires")
          .Str("kind", job.kind)
          .Emit();
      return std::nullopt;
    }
    // Not interruptible: a stop request must not abandon the outcome.
    Wait(std::min(backoff, left), false, false);
    backoff = std::min(backoff * 2, 5.0);
  }
}

void Worker::RunJob(const queue::Job& job, std::optional<queue::Job>* next) {
  SetPhase(supervisor::WorkerPhase::kBusy, job.id);
  SetTitle("job " + std::to_string(job.id) + " " + TitleSafe(job.kind));
  double started = Now();
  Context ctx(this, job);
  // Handlers that wait on the event loop (S3 transfers) renew the lease from
  // this timer as well as at their own checkpoints; the handler's database
  // calls are synchronous, so the connection is idle whenever it fires.
  double every = static_cast<double>(deps_.settings->worker_lease_secs) / 3;
  ev_timer renew;
  ev_timer_init(&renew, OnRenewTimer, every, every);
  renew.data = &ctx;
  ev_timer_start(loop_, &renew);
  queue::Outcome outcome;
  try {
    outcome = deps_.registry->Dispatch(ctx);
  } catch (const std::exception& e) {
    outcome = queue::Outcome::Retry(std::string("handler raised: ") + e.what());
  }
  ev_timer_stop(loop_, &renew);
  double duration = Now() - started;
  std::optional<queue::JobQueue::Finished> finished =
      RecordOutcome(job, outcome, ctx.LeaseEnd());
  if (finished) {
    const queue::Recorded* rec = &finished->recorded;
    *next = std::move(finished->next);
    obs::Event event =
        MakeJobEvent(job.id, job.kind, rec->state, rec->attempts);
    event.Num("duration_s", duration);
    if (!rec->applied) event.Bool("discarded", true);
    ReportJob(deps_.metrics, event, job.kind, rec->state, rec->lag_secs,
              duration);
    if (deps_.status != nullptr) {
      deps_.status->slot(slot_).jobs_done.fetch_add(1,
                                                    std::memory_order_relaxed);
    }
  }
  if (!next->has_value()) {
    SetPhase(supervisor::WorkerPhase::kIdle);
    SetTitle("idle");
  }
}

int Worker::Run() {
  InstallWorkerSignals(loop_);
  obs::SetLogWorker(id_);
  SetPhase(supervisor::WorkerPhase::kConnecting);
  SetTitle("connecting");
  Result<std::unique_ptr<store::ObjectStore>> opened =
      store::OpenStore(*deps_.store_url, *deps_.s3_options, loop_);
  if (!opened.ok()) {
    obs::Error("worker", "cannot open the object store")
        .Str("error", opened.status().message())
        .Emit();
    return 1;
  }
  store_ = std::move(*opened);
  double poll =
      static_cast<double>(deps_.settings->worker_poll_interval_ms) / 1000.0;
  // A job claimed together with the last outcome is in flight: it runs
  // even when a stop arrived meanwhile.
  std::optional<queue::Job> next;
  while (!StopRequested() || next) {
    if (next) {
      queue::Job job = std::move(*next);
      next.reset();
      RunJob(job, &next);
      continue;
    }
    if (!EnsureConnected()) {
      Wait(reconnect_backoff_, false);
      continue;
    }
    if (deps_.status != nullptr &&
        deps_.status->Phase(slot_) == supervisor::WorkerPhase::kConnecting) {
      SetPhase(supervisor::WorkerPhase::kIdle);
      SetTitle("idle");
    }
    MaybeReclaim();
    // A stop that arrived during the round trips above must prevent the
    // claim, not only the next iteration.
    if (!conn_ || StopRequested()) continue;
    Result<std::optional<queue::Job>> claimed = queue_->Claim();
    if (!claimed.ok()) {
      OnDatabaseError(claimed.status(), "claim");
      if (conn_) Wait(poll, false);
      continue;
    }
    if (claimed->has_value()) {
      RunJob(**claimed, &next);
      continue;
    }
    Result<int> notes = conn_->DrainNotifications();
    if (!notes.ok()) {
      OnDatabaseError(notes.status(), "listen");
      continue;
    }
    if (*notes == 0) Wait(poll, true);
    if (conn_) {
      notes = conn_->DrainNotifications();
      if (!notes.ok()) OnDatabaseError(notes.status(), "listen");
    }
  }
  SetPhase(supervisor::WorkerPhase::kStopping);
  SetTitle("stopping");
  return 0;
}

}  // namespace awc::worker
