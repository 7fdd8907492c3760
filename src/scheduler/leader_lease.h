// LeaderLease: a named TTL lease in awc.leader_leases, held by one holder
// under a fencing token (docs/scheduler.md, "Scheduler").
//
// Contract:
//  - Acquire() takes the lease when it is absent or expired, with a new
//    token from awc.leader_lease_token_seq (tokens only grow). A live
//    lease, even one of this holder, is never taken: a holder that lost
//    track of its token waits for the expiry like everyone else.
//  - Renew() extends a held lease; false once the token has moved (someone
//    took over after an expiry). Renewing an expired lease nobody took
//    over is fine: nobody else acted under another token meanwhile.
//  - Fence(), inside a transaction, is the condition of every write made
//    under the lease: it share-locks the lease row while the token is
//    still ours, so a takeover cannot commit before that transaction does,
//    and returns kFailedPrecondition ("leadership lost") otherwise.
//  - Release() ends a held lease now, so that a standby takes over at once.
//  - Clamp(), whoever holds the lease, cuts an expiry that lies more than
//    one lease length (this LeaderLease's) ahead of the database's now()
//    to one lease length from now, and changes nothing else: the holder
//    and the token stay, so a live holder keeps fencing and renewing, and
//    whoever takes over after the cut expiry gets a new token as ever
//    (docs/scheduler.md, "Clamps"). It reports what it cut.
//  - Database errors come back as they are (kTransient for a lost session).
#ifndef AWC_SCHEDULER_LEADER_LEASE_H_
#define AWC_SCHEDULER_LEADER_LEASE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "db/pg.h"

namespace awc::scheduler {

// An expiry Clamp() cut.
struct LeaseClamp {
  std::string name;        // the lease
  std::string holder;      // its holder, not necessarily this process
  int64_t token = 0;       // its token, unchanged
  std::string expires_at;  // the expiry it had (ISO 8601, UTC; "infinity")
  std::string clamped_to;  // the expiry it has now
  int64_t lease_secs = 0;  // the bound: one lease length
};

class LeaderLease {
 public:
  LeaderLease(db::PgConn* conn, std::string name, std::string holder,
              int64_t lease_secs);

  // True when the lease is now ours (and held() from then on).
  Result<bool> Acquire();
  // True while still ours; false (and !held()) once it is not.
  Result<bool> Renew();
  Status Release();
  // Inside a transaction: OK while the lease is ours.
  Status Fence();
  // What it cut, or nullopt when the expiry was within one lease length.
  Result<std::optional<LeaseClamp>> Clamp();

  bool held() const { return token_ != 0; }
  int64_t token() const { return token_; }
  const std::string& holder() const { return holder_; }
  const std::string& name() const { return name_; }

 private:
  db::PgConn* conn_;
  std::string name_;
  std::string holder_;
  int64_t lease_secs_;
  int64_t token_ = 0;  // 0: not held
};

// The status Fence() returns once the lease is someone else's.
Status LeadershipLost();
bool IsLeadershipLost(const Status& s);

}  // namespace awc::scheduler

#endif  // AWC_SCHEDULER_LEADER_LEASE_H_
