// Scheduler: the loop of the scheduler process, one child of the master in
// every tree (docs/scheduler.md, "Scheduler"), independent of where its
// database is (SchedulerSession) and where it reports (SchedulerReporter).
//
// Contract:
//  - States: kConnecting until the session is open; then kStandby or
//    kLeading, the two roles; kStopped once Run() is about to return. The
//    reporter hears of the role (RoleChanged) each time it changes.
//  - A standby tries to take the leader lease every third of
//    AWC_SCHEDULER_LEASE_SECS. The leader fires every due schedule (each
//    firing fenced on its token), then renews the lease once a third of it
//    has passed since the last renewal (also between the batches of a
//    long firing), then waits until the next schedule is due, the next
//    renewal, or an operator's change, whichever comes first.
//  - A due schedule its firing passes over (its row locked by another
//    session, which the firing skips rather than wait for; or no longer
//    due) is left out of the look at what is due and of the wait's end
//    until the next wait, which then lasts kPassedOverRetrySecs at most: a
//    locked schedule is tried again about every second, stalls no other,
//    and fires once (with its catch-up) when its row is free.
//  - Bounds (docs/scheduler.md, "Clamps"): a standby cuts the lease's
//    expiry to one lease length before each attempt to take it (a row set
//    years ahead by SQL would keep everyone a standby); the leader cuts
//    every next run that lies more than a period ahead when it takes the
//    lease and every third of the lease after, before it looks at what is
//    due. Each cut is reported (LeaseClamped, ScheduleClamped).
//  - Due schedules are fired before the lease is renewed: a leader that
//    was paused past its lease (SIGSTOP, a VM stall) finds out from its
//    first write, which the fence refuses; nothing it does after a
//    takeover reaches the database.
//  - A session that cannot write (db/writable.h: the database URL leads to
//    a standby, or default_transaction_read_only is on) is not an error:
//    Connect() is tried again, after kReconnectMinSecs doubling to
//    kReconnectMaxSecs, each refusal reported (DatabaseUnavailable), until
//    a session can write or a stop is requested (then Run() returns 0).
//    A write refused later on (SQLSTATE 25006) is a database error as any
//    other: the next process starts with the check.
//  - Run() returns the process's exit code: 0 after a stop was requested
//    (a leader releases its lease first, so a standby takes over at once);
//    kExitLeadershipLost when the lease turned out to be someone else's
//    (the master restarts the process at once, as a standby); kExitFailure
//    on any database error (the master restarts it with its crash-loop
//    backoff; a lease it held expires).
//  - Leader or standby, it samples the queue's depth (SampleDepth) and
//    the database's horizon (SampleHorizon) when it has connected and every
//    options.queue_sample_secs after, and reports them (QueueSampled,
//    HorizonSampled): two queries per host at a fixed pace, whatever
//    scrapes the metrics. Its waits end in time for the next sample; a
//    long firing may delay it. A failed sample is a database error like
//    any other.
//  - The clock is Env::NowMonotonic(); the database decides who leads.
#ifndef AWC_SCHEDULER_SCHEDULER_H_
#define AWC_SCHEDULER_SCHEDULER_H_

#include <string>
#include <vector>

#include "common/env.h"
#include "scheduler/scheduler_options.h"
#include "scheduler/session.h"

namespace awc::scheduler {

inline constexpr int kExitFailure = 1;
// EX_TEMPFAIL: the scheduler gave up leadership; restart it at once.
inline constexpr int kExitLeadershipLost = 75;
// Most schedules fired per look at the due ones.
inline constexpr int kDueBatch = 100;
// The longest wait while a schedule was passed over.
inline constexpr double kPassedOverRetrySecs = 1.0;
// The backoff between attempts to connect while sessions cannot write, as
// the workers' (worker/worker.h).
inline constexpr double kReconnectMinSecs = 0.25;
inline constexpr double kReconnectMaxSecs = 15.0;

struct SchedulerDeps {
  SchedulerOptions options;
  SchedulerSession* session;
  SchedulerReporter* reporter;
  Env* env;
  process::StopFn stop_requested;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerDeps deps);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  int Run();

 private:
  enum class State { kConnecting, kStandby, kLeading, kStopped };

  // Moves to `next`, reporting a change of role.
  // One step of each role; an exit code to end the loop, or -1.
  int TryToLead();
  int Lead();
  // Renews the lease if a third of it has passed; an exit code, or -1.
  int MaybeRenew();
  // Cuts the next runs beyond their bound if it is time; an exit code, or
  // -1.
  int MaybeClamp();
  Result<bool> BetweenBatches();
  // Samples the queue's depth if it is time; an exit code, or -1.
  int MaybeSample();
  // Seconds until the next sample is due (at least kMinWait's worth is
  // waited in any case).
  double UntilSample() const { return sample_at_ - Now(); }
  void Enter(State next);
  int Lost(const std::string& during);
  int Failed(const std::string& step, const Status& error);
  // Connect(), again with backoff while the session cannot write; an exit
  // code, or -1 once connected.
  int ConnectWritable();
  double Now() const { return deps_.env->NowMonotonic(); }
  double Third() const {
    return static_cast<double>(deps_.options.lease_secs) / 3.0;
  }

  SchedulerDeps deps_;
  State state_ = State::kConnecting;
  double renew_at_ = 0;
  double clamp_at_ = 0;
  double sample_at_ = 0;
  // The due schedules passed over since the last wait.
  std::vector<std::string> passed_over_;
};

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_SCHEDULER_H_
